// The one tolerance rule of the format (doc/record-format.md §4 parity; doc/runtime-matrix.md, "Drift"):
// an element of `actual` is within the tolerance of `expected` when
//   |actual - expected| <= atol + rtol * |expected|      (computed in double; NaN is never within).
// compare_to_tolerance measures a whole output against another in one pass, over their common length:
//   max_abs  the largest |actual - expected|;
//   max_rel  the largest |actual - expected| / max(|expected|, 1e-30);
//   margin   the largest |actual - expected| / (atol + rtol * |expected|) over the elements that differ
//            (0 when none does); nullopt when one differs where the allowed error is 0, by an error that is
//            not finite, or by a ratio past double's range (an infinite margin: the record's null), so a
//            margin is always a finite number or nullopt;
//   within   every element within the tolerance (true for empty outputs).
// The one verdict of a margin is `margin_within`: a margin is within the tolerance iff it is a number at most
// 1, and `within == margin_within(margin)` always holds (err > allowed > 0 makes err at least the next double
// above allowed, so the correctly rounded err / allowed is above 1). The triangulation's departures and the
// record validator's check of a case against its margin (record/validate_triangulation.cc) call it.
// Parity's record errors and triangulation (stages/parity.cc, stages/triangulation.h) and the matrix's drift
// (matrix/drift.h) all call it; a caller that needs more (non-finite counts, ulps) computes it beside.
//
// The tolerances themselves (doc/record-format.md §3, §6): rtol and atol are each 0 or a finite number of at
// least kMinNonzeroTolerance; `tolerance_problem` is that rule, for profiles and records alike.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace nnx {

// The smallest nonzero rtol or atol: float32's smallest normal number, 2^-126 (1.1754943508222875e-38). A
// smaller one allows less error than float32 can tell apart, and an error divided by it overflows.
inline constexpr double kMinNonzeroTolerance = 0x1p-126;

// "" when `value` can be an rtol or atol; else what it must be and why, naming it as `given` ("must be a
// finite number >= 0, not -1"; "must be 0 or at least 1.1754943508222875e-38 ..., not 5e-324: ..."), for
// the caller to prefix with the field's name.
std::string tolerance_problem(double value, const std::string& given);

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

// The verdict of a margin (nullopt: an infinite one): within the tolerance iff a number at most 1.
inline bool margin_within(const std::optional<double>& margin) { return margin && *margin <= 1.0; }

ToleranceComparison compare_to_tolerance(std::span<const double> actual, std::span<const double> expected,
                                         const Tolerance& tolerance);
// The same for float32 outputs, each value widened to double first (exactly).
ToleranceComparison compare_to_tolerance(std::span<const float> actual, std::span<const float> expected,
                                         const Tolerance& tolerance);

}  // namespace nnx
