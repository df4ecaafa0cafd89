// The one rule by which every model kind's case inputs are drawn from their seeds (doc/record-format.md §2,
// "Input cases"; §10): a floating input is PyTorch's torch.randn(shape, generator=a Generator seeded with
// `seed`) in float32 (model/torch_random.h, bit for bit), then widened (float64) or rounded to nearest, ties
// to even (float16, bfloat16: base/tensor.h); an integer input is uniform in [low, high) from the 64-bit
// values of an MT19937 seeded the same way (two 32-bit outputs per value, high word first, taken modulo
// high - low), a bool one the same over [0, 2). The feed-forward net's input is the float32 draw; a module's
// and an ONNX file's inputs are drawn as their specs type them (stages/module_tensors.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/tensor.h"

namespace nnx {

// torch.randn(shape, generator seeded with `seed`), float32, row-major.
std::vector<float> draw_randn(const std::vector<std::int64_t>& shape, std::uint64_t seed);

// An input named `name` of `dtype` and `shape`, drawn from `seed`; an integer or bool input from `range`
// ([low, high), within the dtype: its profile checked it), [0, 2) when it has none (a bool's).
Tensor draw_input(std::string name, DType dtype, const std::vector<std::int64_t>& shape, std::uint64_t seed,
                  const std::optional<std::pair<std::int64_t, std::int64_t>>& range);

}  // namespace nnx
