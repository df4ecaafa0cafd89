// The comparison of an integer or bool output (doc/record-format.md §10, "Integer and bool outputs"): no
// rtol/atol applies to them; their elements compare exactly, and the result is a count.
//   differing   the elements where `actual` and `expected` hold other values (byte for byte);
//   near_ties   of those, the ones the float64 oracle cannot separate: where `scores` (the oracle's float64
//               candidates an index was chosen from, shape = the output's shape + [candidates]: an argmax or
//               argmin's input, its reduced axis last) gives the runtime's and the reference's candidate
//               scores within the tolerance of each other (|s[actual] - s[expected]| <= atol + rtol *
//               |s[expected]|, base/tolerance_compare.h's one rule). An index outside [0, candidates) is never
//               a near tie. nullopt when there are no scores (the oracle cannot tell: an output not traced to
//               an argmax/argmin, a bool output), or they do not have that shape;
//   counted     differing - near_ties (differing when the oracle cannot tell): the output is within iff 0.
// `actual` and `expected` must have one dtype and one shape (the caller states any other difference).
#pragma once
#include <cstdint>
#include <optional>

#include "base/tensor.h"
#include "base/tolerance_compare.h"

namespace nnx {

// Whether outputs of `dtype` compare exactly (int64, int32, int8, uint8, bool) rather than under a tolerance.
bool compares_exactly(DType dtype);

struct ExactComparison {
  std::int64_t elements = 0;
  std::int64_t differing = 0;
  std::optional<std::int64_t> near_ties;
  std::int64_t counted() const { return differing - near_ties.value_or(0); }
  bool within() const { return counted() == 0; }
};

ExactComparison compare_exactly(const Tensor& actual, const Tensor& expected, const Tensor* scores,
                                const Tolerance& tolerance);

}  // namespace nnx
