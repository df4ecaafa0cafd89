// The one tolerance rule of the format (doc/record-format.md §4 parity; doc/runtime-matrix.md, "Drift"):
// an element of `actual` is within the tolerance of `expected` when
//   |actual - expected| <= atol + rtol * |expected|      (computed in double; NaN is never within).
// compare_to_tolerance measures a whole output against another in one pass, over their common length:
//   max_abs  the largest |actual - expected|;
//   max_rel  the largest |actual - expected| / max(|expected|, 1e-30);
//   margin   the largest |actual - expected| / (atol + rtol * |expected|) over the elements that differ
//            (0 when none does); nullopt when one differs where the allowed error is 0 (an infinite margin);
//   within   every element within the tolerance (true for empty outputs).
// Parity's record errors and triangulation (stages/parity.cc, stages/triangulation.h) and the matrix's drift
// (matrix/drift.h) all call it; a caller that needs more (non-finite counts, ulps) computes it beside.
#pragma once

#include <optional>
#include <span>

namespace nnx {

struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
};

struct ToleranceComparison {
  double max_abs = 0.0;
  double max_rel = 0.0;
  std::optional<double> margin = 0.0;
  bool within = true;
};

ToleranceComparison compare_to_tolerance(std::span<const double> actual, std::span<const double> expected,
                                         const Tolerance& tolerance);
// The same for float32 outputs, each value widened to double first (exactly).
ToleranceComparison compare_to_tolerance(std::span<const float> actual, std::span<const float> expected,
                                         const Tolerance& tolerance);

}  // namespace nnx
