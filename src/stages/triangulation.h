// Parity's triangulation (doc/reading-a-failure.md, "Reading the triangulation"; doc/record-format.md §4 parity): besides
// ONNX Runtime against the reference (the record's errors), every compared case measures ONNX Runtime and
// the reference each against the float64 oracle (model/reference_model.h), and our C++ float32 forward
// against the reference. A departure's margin is its worst error divided by the allowed error,
// max |a - b| / (atol + rtol * |b|) over the elements (b the side measured against): <= 1 is within the
// tolerance (the margin of base/tolerance_compare.h, the one comparison). When parity fails, the blame names who is off:
//   weights           the initializers stored in model.onnx differ from the model's weights (an exporter fault);
//   runtime-or-graph  ONNX Runtime departs from the oracle (or refused, failed, returned the wrong thing)
//                     while the reference agrees with it;
//   reference         the reference departs (or could not be computed) while ONNX Runtime agrees;
//   both              otherwise.
// The oracle is exact arithmetic, not fast: a case is triangulated on its first `triangulation_rows` rows (all of
// them unless the model is large: about 2^26 multiply-adds per case at most), and `rows` says how many.
// All of it goes into stages.parity.detail (free-form), so records stay nnx.export-conformance/1.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tolerance_compare.h"

namespace nnx {

struct Departure {
  double max_abs_error = 0.0;
  // nullopt when the tolerance is zero where the values differ (an infinite margin; JSON null).
  std::optional<double> margin = 0.0;
  bool beyond_tolerance() const { return !margin_within(margin); }
  nlohmann::json to_json() const;
};

// `values` measured against `against` (same length, finite): compare_to_tolerance's max_abs and margin.
Departure departure(std::span<const double> values, std::span<const double> against, double rtol, double atol);
Departure departure_of(const ToleranceComparison& comparison);
std::vector<double> widen(std::span<const float> values);

// How many leading rows of a batch are triangulated for a model of `weight_count` weights.
inline constexpr std::int64_t kOracleMultiplyAddsPerCase = std::int64_t{1} << 26;
std::int64_t triangulation_rows(std::int64_t batch, std::int64_t weight_count);

struct CaseTriangulation {
  std::string name;
  std::int64_t rows = 0;           // leading rows measured against the oracle (and the native forward)
  Departure runtime_vs_reference;  // its margin is the case's margin
  Departure runtime_vs_oracle;
  Departure reference_vs_oracle;
  Departure native_vs_reference;
  nlohmann::json to_json() const;
};

// What each side did across the cases; the blame follows from it.
struct BlameEvidence {
  bool weights_differ = false;     // model.onnx's initializers are not the model's weights
  bool runtime_departs = false;    // beyond tolerance from the oracle, refused a valid batch, failed, ...
  bool reference_departs = false;  // beyond tolerance from the oracle, non-finite, or not computed
};

const char* blame_of(const BlameEvidence& evidence);  // one of rf::triangulation_key's kBlame* values

}  // namespace nnx
