#include "base/tolerance_compare.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace nnx {

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
    if (allowed == 0.0) {
      unbounded = true;
    } else {
      worst = std::max(worst, err / allowed);
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
