// The dtype-aware tolerance of half-precision outputs (doc/record-format.md §10, "Half-precision outputs"): a
// float16 or bfloat16 output cannot be closer to the truth than its own rounding, so it is compared under the
// profile's rtol and atol each widened to at least the dtype's machine epsilon (float16 2^-10 =
// 0.0009765625, bfloat16 2^-7 = 0.0078125); every other dtype under the profile's own. The record states the
// tolerance each half output was judged by (stages.parity.detail.dtype_tolerances).
#pragma once
#include <optional>

#include "base/tensor.h"
#include "base/tolerance_compare.h"

namespace nnx {

// The machine epsilon of a half-precision dtype; nullopt for every other dtype.
std::optional<double> half_epsilon(DType dtype);

// The tolerance an output of `dtype` is compared under, given the profile's.
Tolerance tolerance_for(DType dtype, const Tolerance& profile);

}  // namespace nnx
