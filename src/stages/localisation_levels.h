// One optimisation level of a localisation (localisation.h step 3; doc/localisation.md, "Levels and groups").
// The level's optimised graph is written by the runtime into the scratch folder and read for the values
// that survive it; the others are `fused` (compared only where they survive, at ORT_DISABLE_ALL). The plain
// session's outputs are judged against the case's references under the record's tolerance
// (`outputs_within`). The surviving aligned values are marked as outputs in groups of at most
// `memory_bytes` (by PyTorch's sizes; a larger value alone), each group a session of its own, run on the
// case's inputs; its values are compared one at a time (value_departure.h) and let go, and its final
// outputs compared bit for bit with the plain session's: marking values as outputs that changes them is
// said (`observer`). No group starts after the deadline (`stopped` says how many were compared).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "stages/localisation.h"
#include "stages/localisation_internal.h"

namespace nnx::localisation {

struct ValueResult {
  std::size_t aligned = 0;  // index into Alignment::aligned
  ValueDeparture departure;
};

struct LevelOutcome {
  std::string level;
  std::vector<ValueResult> compared;
  std::vector<std::string> fused;
  bool outputs_within = true;
  double outputs_max_abs_error = 0.0;  // the plain session's largest error against the case's references
  std::optional<double> observer_max_abs;
  std::string stopped;
  std::string failure;  // a session that could not be created or run: the level is not compared
  std::size_t groups = 0;
  double seconds = 0.0;
  std::uint64_t largest_group_bytes = 0;
  // The first compared value that departs, as an index into `compared`.
  std::optional<std::size_t> first_departing() const;
  // Its summary and `path`: every compared value in graph order ({value, op_type, departs, margin}).
  nlohmann::json to_json(const Alignment& alignment, const GraphOutline& outline) const;
};

// The graph run at `level` with the values `marked` as outputs besides its own (every output, in graph order).
std::vector<Tensor> run_marked(const Subject& subject, const std::string& level, const std::vector<std::string>& marked);

LevelOutcome compare_at_level(const Subject& subject, const Alignment& alignment, const ReferenceValues& torch,
                              const std::string& level, const LocaliseLimits& limits,
                              std::chrono::steady_clock::time_point deadline);

}  // namespace nnx::localisation
