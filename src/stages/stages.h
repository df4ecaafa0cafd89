// The five stages of doc/record-format.md §4, one unit each (a function whose .cc is named after the stage;
// export and parity are one path for every model kind, which answers their hooks: export_kind.h, parity_kind.h),
// and the pipelines that run them in order (this header is the one place that orders them). A stage after
// one that did not pass stays not_run; between stages a received SIGINT/SIGTERM ends the run (Interrupted).
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <span>
#include <utility>

#include "artifacts/artifacts.h"
#include "base/failure.h"
#include "runtime/runtime.h"
#include "stages/stage_context.h"

namespace nnx {

bool run_dependencies_stage(StageContext& context);  // stages/dependencies.cc
bool run_export_stage(StageContext& context);        // stages/export.cc
bool run_check_stage(StageContext& context);         // stages/check.cc
// The check stage of a kind the worker exported: onnx.checker in the worker, then the manifest (check.cc).
bool check_with_worker(StageContext& context);
bool run_load_stage(StageContext& context);          // stages/load.cc
bool run_parity_stage(StageContext& context);        // stages/parity.cc

// The record's model as the load stage gives it to a session (load.cc): its artifacts verified again, the
// model's bytes and every external-data location it names with the verified bytes of its file, and the
// record's session settings. Localisation (localisation.h) creates its own sessions from these. Throws
// ConformanceError when the artifacts do not verify or a location is not listed.
struct VerifiedModel {
  VerifyOutcome verified;  // holds the bytes `model` and `external` point into
  std::span<const std::byte> model;
  std::vector<ExternalFile> external;
  SessionSettings settings;
};
VerifiedModel verified_model(StageContext& context);

// Records the stage `failure` belongs to (base/failure.h failure_stage) as failed with `detail`; false, for a
// stage to return. The one way a stage's own code fails it.
inline bool stage_failed(StageContext& context, FailureClass failure, nlohmann::json detail) {
  context.record.set_stage_failed(failure_stage(failure), failure, std::move(detail));
  return false;
}

struct StageUnit {
  Stage stage;
  bool (*run)(StageContext&);
};

// What `run` does for a profile: one unit per stage, in the order of kStages.
inline constexpr std::array<StageUnit, kStageCount> kRunPipeline = {{
    {Stage::dependencies, run_dependencies_stage},
    {Stage::export_model, run_export_stage},
    {Stage::check, run_check_stage},
    {Stage::load, run_load_stage},
    {Stage::parity, run_parity_stage},
}};
// The run pipeline's worker part (the stages that ask the exporter worker) and its runtime part, which
// needs no worker once prepare_parity has asked it for parity's reference: a run hands the worker to the
// next profile between the two (app/run_profile.h).
// The worker part is every stage up to and including check, the runtime part every stage from load on.
inline constexpr Stage kLastWorkerStage = Stage::check;
inline constexpr Stage kFirstRuntimeStage = Stage::load;
inline constexpr std::span<const StageUnit> kRunWorkerStages =
    std::span(kRunPipeline).first<stage_index(kLastWorkerStage) + 1>();
inline constexpr std::span<const StageUnit> kRunRuntimeStages =
    std::span(kRunPipeline).subspan<stage_index(kFirstRuntimeStage)>();

// A stage added to kStages without its unit here, or listed out of order, fails the build; so does a gap
// or an overlap between the two parts.
static_assert([] {
  for (std::size_t i = 0; i < kStageCount; ++i) {
    if (kRunPipeline[i].stage != kStages[i] || kRunPipeline[i].run == nullptr) return false;
  }
  return true;
}());
static_assert(stage_index(kLastWorkerStage) + 1 == stage_index(kFirstRuntimeStage));

// Parity's worker part, ahead of the load stage (stages/parity.cc): the record's kind prepares its reference
// (parity_kind.h ParityKind::prepare): the feed-forward net draws its input cases and computes the reference's
// outputs into context.prepared_parity (the torch reference asks context.exporter, which is stopped if it cannot
// answer); a module's reference was stored by its export (execute's torch reference is recomputed here). Parity
// then uses what was prepared instead of preparing it itself.
void prepare_parity(StageContext& context);

// What `execute` does again for a saved record.
inline constexpr std::array<StageUnit, 2> kExecutePipeline = {{
    {Stage::load, run_load_stage},
    {Stage::parity, run_parity_stage},
}};

// What a caller of run_stages is told around each stage (app/run_profile.cc times them for `run --timings`):
// `before` just before the stage starts, `after` once it returned (not when it threw), with when it started
// and ended. Either may be empty.
struct StageHook {
  using Clock = std::chrono::steady_clock;
  std::function<void(Stage stage)> before;
  std::function<void(Stage stage, Clock::time_point start, Clock::time_point end)> after;
};

// Runs `units` in order until one does not pass (stages/pipeline.cc), the one loop that does: before each
// unit a received SIGINT/SIGTERM ends the run (Interrupted). Returns whether every unit passed.
bool run_stages(StageContext& context, std::span<const StageUnit> units, const StageHook& hook = {});

}  // namespace nnx
