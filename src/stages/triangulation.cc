#include "stages/triangulation.h"

#include <algorithm>

#include "base/record_vocabulary.h"

namespace nnx {

namespace triangulation_key = rf::triangulation_key;

nlohmann::json Departure::to_json() const {
  const nlohmann::json margin_value = margin ? nlohmann::json(*margin) : nlohmann::json();
  return nlohmann::json{{triangulation_key::kMaxAbsError, max_abs_error}, {triangulation_key::kMargin, margin_value}};
}

Departure departure_of(const ToleranceComparison& comparison) {
  Departure d;
  d.max_abs_error = comparison.max_abs;
  d.margin = comparison.margin;
  return d;
}

Departure departure(std::span<const double> values, std::span<const double> against, double rtol, double atol) {
  return departure_of(compare_to_tolerance(values, against, Tolerance{rtol, atol}));
}

std::vector<double> widen(std::span<const float> values) { return {values.begin(), values.end()}; }

std::int64_t triangulation_rows(std::int64_t batch, std::int64_t weight_count) {
  const std::int64_t affordable = kOracleMultiplyAddsPerCase / std::max<std::int64_t>(weight_count, 1);
  return std::clamp<std::int64_t>(affordable, std::min<std::int64_t>(batch, 1), batch);
}

nlohmann::json CaseTriangulation::to_json() const {
  return nlohmann::json{{triangulation_key::kCase, name},
                        {triangulation_key::kRows, rows},
                        {triangulation_key::kMargin, runtime_vs_reference.to_json()[triangulation_key::kMargin]},
                        {triangulation_key::kRuntimeVsOracle, runtime_vs_oracle.to_json()},
                        {triangulation_key::kReferenceVsOracle, reference_vs_oracle.to_json()},
                        {triangulation_key::kNativeVsReference, native_vs_reference.to_json()}};
}

const char* blame_of(const BlameEvidence& evidence) {
  if (evidence.weights_differ) return triangulation_key::kBlameWeights;
  if (evidence.runtime_departs && !evidence.reference_departs) return triangulation_key::kBlameRuntimeOrGraph;
  if (evidence.reference_departs && !evidence.runtime_departs) return triangulation_key::kBlameReference;
  return triangulation_key::kBlameBoth;
}

}  // namespace nnx
