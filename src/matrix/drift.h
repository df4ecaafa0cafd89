// Drift between ONNX Runtime releases (doc/runtime-matrix.md, "Drift"): for every profile and input case
// that two or more runtimes computed, the largest |difference| between any two runtimes' outputs, absolute
// and in float32 ulps, and the pair that gives it; and every runtime against the newest one that computed
// the case, with whether it stays within the profile's tolerance (|x - newest| <= atol + rtol * |newest| for
// every element, the parity rule: base/tolerance_compare.h). Computed from the outputs the cells handed back
// (never from the records), so a merge of shards recomputes exactly the unsharded drift.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tolerance_compare.h"

namespace nnx::matrix {

using json = nlohmann::json;

// One case's output as a runtime computed it (float32).
struct CaseOutput {
  std::string case_name;
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

// Every output of one cell, by profile, in the record's case order.
struct RuntimeOutputs {
  std::string version;  // the cell's name (matrix/cell_settings.h cell_name): its release, then its settings
  std::map<std::string, std::vector<CaseOutput>> profiles;
  std::string release;  // its release alone; "" when the name is the release
  bool tested = true;   // run with the brief's settings (a cell the reference may be)
};

// The distance between two finite float32 values in units in the last place: how many float32 values lie
// from a to b (0 for a == b, +0 and -0 included; 1 between neighbours, across zero too).
std::uint64_t float32_ulps(float a, float b);

// The largest differences between two outputs of the same shape: absolute and in ulps (each its own maximum
// over the elements), and whether every element of `other` is within `tolerance` of `newest`
// (compare_to_tolerance with `other` the actual and `newest` the expected).
struct Difference {
  bool comparable = false;  // same shape, every value finite
  double max_abs = 0.0;
  std::uint64_t max_ulps = 0;
  bool within_tolerance = false;
};
Difference difference(const CaseOutput& newest, const CaseOutput& other, const Tolerance& tolerance);

// The matrix's "drift" (shape in doc/runtime-matrix.md). `runtimes` in matrix order; `profiles` with their
// tolerances in the report's order (cases follow it, then the order the runtimes hold them).
// The pair reported is the one with the largest absolute difference; ties go to the larger ulps, then to the
// first pair in matrix order.
using ProfileTolerances = std::vector<std::pair<std::string, Tolerance>>;
json compute_drift(const std::vector<RuntimeOutputs>& runtimes, const ProfileTolerances& profiles);

// The summary's lines about drift: per profile of `profiles` (in that order) its largest difference and pair, or
// that fewer than two runtimes computed comparable outputs; then every runtime beyond the tolerance of the newest.
std::vector<std::string> drift_summary_lines(const json& drift, const std::vector<std::string>& profiles);

}  // namespace nnx::matrix
