#include "base/tolerance_compare.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace nnx {

std::string tolerance_problem(double value, const std::string& given) {
  if (!std::isfinite(value) || value < 0.0) return "must be a finite number >= 0, not " + given;
  if (value != 0.0 && value < kMinNonzeroTolerance) {
    return "must be 0 or at least 1.1754943508222875e-38 (float32's smallest normal number), not " + given +
           ": a smaller tolerance allows less than float32 can tell apart and its margins overflow; use 0 "
           "for exact equality";
  }
  return "";
}

ToleranceComparison compare_to_tolerance(std::span<const double> actual, std::span<const double> expected,
                                         const Tolerance& tolerance) {
  ToleranceComparison result;
  double worst = 0.0;
  bool unbounded = false;
  const std::size_t count = std::min(actual.size(), expected.size());
  for (std::size_t i = 0; i < count; ++i) {
    const double err = std::fabs(actual[i] - expected[i]);
    const double allowed = tolerance.atol + tolerance.rtol * std::fabs(expected[i]);
    result.max_abs = std::max(result.max_abs, err);
    result.max_rel = std::max(result.max_rel, err / std::max(std::fabs(expected[i]), 1e-30));
    if (!(err <= allowed)) result.within = false;
    if (err == 0.0) continue;
    const double ratio = allowed == 0.0 ? HUGE_VAL : err / allowed;
    if (std::isfinite(ratio)) {
      worst = std::max(worst, ratio);
    } else {
      unbounded = true;  // a zero allowed error, an error that is no number, a ratio past double's range
    }
  }
  if (unbounded) {
    result.margin.reset();
  } else {
    result.margin = worst;
  }
  return result;
}

ToleranceComparison compare_to_tolerance(std::span<const float> actual, std::span<const float> expected,
                                         const Tolerance& tolerance) {
  const std::vector<double> actual64(actual.begin(), actual.end());
  const std::vector<double> expected64(expected.begin(), expected.end());
  return compare_to_tolerance(actual64, expected64, tolerance);
}

}  // namespace nnx
