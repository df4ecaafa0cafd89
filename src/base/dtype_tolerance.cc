// The dtype-aware tolerance of half-precision outputs (dtype_tolerance.h).
#include "base/dtype_tolerance.h"

#include <algorithm>

namespace nnx {

std::optional<double> half_epsilon(DType dtype) {
  switch (dtype) {
    case DType::float16: return 0x1p-10;
    case DType::bfloat16: return 0x1p-7;
    case DType::float32:
    case DType::float64:
    case DType::int64:
    case DType::int32:
    case DType::int8:
    case DType::uint8:
    case DType::boolean: return std::nullopt;
  }
  return std::nullopt;
}

Tolerance tolerance_for(DType dtype, const Tolerance& profile) {
  const auto epsilon = half_epsilon(dtype);
  if (!epsilon) return profile;
  return Tolerance{std::max(profile.rtol, *epsilon), std::max(profile.atol, *epsilon)};
}

}  // namespace nnx
