// A module profile's precision and its tolerance (precision.h).
#include "base/precision.h"

namespace nnx {
namespace {

constexpr Precision kAll[] = {Precision::float32, Precision::float16_torch, Precision::float16_graph,
                              Precision::bfloat16};

// 16 machine epsilons of the precision's format: one rounding costs at most half an epsilon, and a CNN of
// some 20 layers rounds its weights and every layer's activations, errors that add in quadrature to about
// sqrt(2 * 20) * eps / 2 ~ 3 eps of the activations' scale; 16 eps leaves five times that.
constexpr double kEpsilons = 16.0;
constexpr double kFloat16Epsilon = 0x1p-10;
constexpr double kBfloat16Epsilon = 0x1p-7;

}  // namespace

std::string_view precision_name(Precision precision) {
  switch (precision) {
    case Precision::float32: return "float32";
    case Precision::float16_torch: return "float16-torch";
    case Precision::float16_graph: return "float16-graph";
    case Precision::bfloat16: return "bfloat16";
  }
  return "float32";
}

std::optional<Precision> parse_precision(std::string_view name) {
  for (const Precision p : kAll) {
    if (precision_name(p) == name) return p;
  }
  return std::nullopt;
}

std::vector<std::string> precision_names() {
  std::vector<std::string> out;
  for (const Precision p : kAll) out.emplace_back(precision_name(p));
  return out;
}

std::optional<Tolerance> precision_tolerance(Precision precision) {
  switch (precision) {
    case Precision::float32: return std::nullopt;
    case Precision::float16_torch:
    case Precision::float16_graph: return Tolerance{kEpsilons * kFloat16Epsilon, kEpsilons * kFloat16Epsilon};
    case Precision::bfloat16: return Tolerance{kEpsilons * kBfloat16Epsilon, kEpsilons * kBfloat16Epsilon};
  }
  return std::nullopt;
}

std::string precision_why(Precision precision) {
  switch (precision) {
    case Precision::float32: return "";
    case Precision::float16_torch:
    case Precision::float16_graph:
      return "16 float16 epsilons (16 * 2^-10): the weights and every layer's values rounded to float16, about 3 "
             "epsilons over some 20 layers, with five times that to spare";
    case Precision::bfloat16:
      return "16 bfloat16 epsilons (16 * 2^-7): the weights and every layer's values rounded to bfloat16, about 3 "
             "epsilons over some 20 layers, with five times that to spare";
  }
  return "";
}

}  // namespace nnx
