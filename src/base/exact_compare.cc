// The comparison of an integer or bool output (exact_compare.h).
#include "base/exact_compare.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

namespace nnx {

bool compares_exactly(DType dtype) {
  switch (dtype) {
    case DType::float32:
    case DType::float64:
    case DType::float16:
    case DType::bfloat16: return false;
    case DType::int64:
    case DType::int32:
    case DType::int8:
    case DType::uint8:
    case DType::boolean: return true;
  }
  return false;
}

namespace {

// The scores' candidate count when they fit `expected` (its shape + [candidates], float64), else 0.
std::size_t candidates(const Tensor* scores, const Tensor& expected) {
  if (scores == nullptr || scores->dtype != DType::float64 || scores->shape.size() != expected.shape.size() + 1) return 0;
  if (!std::equal(expected.shape.begin(), expected.shape.end(), scores->shape.begin())) return 0;
  return scores->shape.back() > 0 ? static_cast<std::size_t>(scores->shape.back()) : 0;
}

bool near_tie(std::span<const double> row, double actual, double expected, const Tolerance& tolerance) {
  const auto k = static_cast<double>(row.size());
  if (!(actual >= 0 && actual < k && expected >= 0 && expected < k)) return false;
  const double chosen[] = {row[static_cast<std::size_t>(actual)]};
  const double reference[] = {row[static_cast<std::size_t>(expected)]};
  return compare_to_tolerance(chosen, reference, tolerance).within;
}

}  // namespace

ExactComparison compare_exactly(const Tensor& actual, const Tensor& expected, const Tensor* scores,
                                const Tolerance& tolerance) {
  ExactComparison result;
  const std::size_t size = dtype_size(expected.dtype);
  const std::size_t count = std::min(actual.bytes.size(), expected.bytes.size()) / size;
  result.elements = static_cast<std::int64_t>(count);
  const std::size_t k = candidates(scores, expected);
  const std::vector<double> values = actual.as_doubles(), wanted = expected.as_doubles();
  const std::vector<double> rows = k ? scores->as_doubles() : std::vector<double>{};
  std::int64_t ties = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (std::memcmp(actual.bytes.data() + i * size, expected.bytes.data() + i * size, size) == 0) continue;
    ++result.differing;
    if (k && near_tie(std::span<const double>(rows).subspan(i * k, k), values[i], wanted[i], tolerance)) ++ties;
  }
  if (k) result.near_ties = ties;
  return result;
}

}  // namespace nnx
