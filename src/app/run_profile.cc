#include "app/run_profile.h"

#include <chrono>
#include <string>

#include "app/source.h"
#include "base/interrupt.h"
#include "artifacts/layout.h"
#include "record/record.h"
#include "stages/stages.h"

namespace nnx {
namespace {

using Clock = std::chrono::steady_clock;

// The phase name of `run --timings` for each stage (app/run_observer.h).
const char* phase_name(Stage stage) {
  switch (stage) {
    case Stage::dependencies: return "worker_start";
    case Stage::export_model: return "export";
    case Stage::check: return "check";
    case Stage::load: return "load";
    case Stage::parity: return "parity";
  }
  return "stage";
}

// Numbers a worker the dependencies stage started (not the one handed on) as the run's next.
void count_new_worker(const StageContext& context, WarmWorker& warm, const ExporterClient* handed) {
  if (context.exporter && context.exporter.get() != handed) warm.serial = (*warm.started)++;
}

// The worker's imports of torch and onnxscript, inside the dependencies phase: they are its last work, in
// request order, so each starts where the imports after it (and the phase's end) leave it.
// Opening the runtime, inside the dependencies phase too: it starts with the phase, beside the worker's start.
void report_imports(const StageContext& context, const RunPhase& dependencies, const RunObserver& observer) {
  if (context.runtime) {
    observer.on_phase({"runtime_open", dependencies.profile, std::nullopt, dependencies.start_s,
                       context.times.runtime_open_seconds});
  }
  double end = dependencies.start_s + dependencies.seconds;
  const auto& imports = context.times.import_seconds;
  for (auto it = imports.rbegin(); it != imports.rend(); ++it) {
    const double start = end - it->second;
    if (it->first == "torch" || it->first == "onnxscript") {
      observer.on_phase({"import_" + it->first, dependencies.profile, dependencies.worker, start, it->second});
    }
    end = start;
  }
}

// stages/pipeline.cc's loop, with the observer told when each stage starts and how long it took.
void run_observed_stages(StageContext& context, const std::string& profile, const RunObserver* observer,
                         WarmWorker& warm, const ExporterClient* handed) {
  for (const StageUnit& unit : kRunPipeline) {
    throw_if_interrupted();  // after SIGINT/SIGTERM no further stage starts
    if (observer != nullptr && observer->on_stage) observer->on_stage(profile, std::string(stage_name(unit.stage)));
    const Clock::time_point start = Clock::now();
    const bool passed = unit.run(context);
    const Clock::time_point end = Clock::now();
    if (unit.stage == Stage::dependencies) count_new_worker(context, warm, handed);
    if (observer == nullptr) {
      if (!passed) return;
      continue;
    }
    if (observer->on_phase) {
      RunPhase phase{phase_name(unit.stage), profile, std::nullopt, observer->since_start(start),
                     std::chrono::duration<double>(end - start).count()};
      if (unit.stage != Stage::load && warm.serial >= 0) phase.worker = warm.serial;  // the worker's stages
      observer->on_phase(phase);
      if (unit.stage == Stage::dependencies) report_imports(context, phase, *observer);
    }
    if (!passed) return;
  }
}

}  // namespace

nlohmann::json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options) {
  WarmWorker none;
  return run_profile(profile, root, options, none);
}

nlohmann::json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options,
                           WarmWorker& warm) {
  require_valid(profile);
  require_free_profile_folder(root, profile.name);
  const auto model = make_reference_model(profile.model);
  Record record = blank_record_of(profile, options.source ? *options.source : detect_source(options.source_revision),
                                  model->weights_sha256());
  StageContext context{record, root, *model, &profile};
  context.open_runtime = options.open_runtime;
  context.runtime_library = options.onnxruntime_library;
  context.worker_command = options.worker ? *options.worker : default_worker_command();
  context.worker_timeout = options.worker_timeout ? *options.worker_timeout : default_worker_timeout();
  if (warm.client && warm.client->running()) {
    warm.client->clear_log();
    context.exporter = std::move(warm.client);
  }
  warm.client.reset();
  const ExporterClient* handed = context.exporter.get();
  run_observed_stages(context, profile.name, options.observer.get(), warm, handed);
  if (context.exporter && context.exporter->running()) {
    warm.client = std::move(context.exporter);  // the next profile's worker
  } else if (context.exporter) {
    context.exporter->stop();
  }
  record.finalize();
  if (options.observer && options.observer->on_profile_end) options.observer->on_profile_end(profile.name);
  return record.to_json();
}

}  // namespace nnx
