// Overloaded{f, g, ...}: one callable of several lambdas, for std::visit over a variant, so that a visit
// names one case per alternative and the compiler refuses a visit that leaves one out (the kinds' variants:
// Profile::parts, InputCase::inputs, RecordCase::inputs).
#pragma once

namespace nnx {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;  // clang 14 (the fuzzing lane's) deduces no aggregate's arguments

}  // namespace nnx
