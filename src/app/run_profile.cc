#include "app/run_profile.h"

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "app/execute_record.h"
#include "app/repro_record.h"
#include "app/source.h"
#include "app/worker_pool.h"
#include "base/interrupt.h"
#include "artifacts/layout.h"
#include "record/record.h"
#include "stages/stages.h"

namespace nnx {
namespace {

using Clock = StageHook::Clock;

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

// The start of each of `parts` (in order, back to back) when they are the last work of `phase`: the last
// ends with the phase.
std::vector<double> starts_ending_with(const RunPhase& phase, const std::vector<std::pair<std::string, double>>& parts) {
  std::vector<double> starts(parts.size());
  double end = phase.start_s + phase.seconds;
  for (std::size_t i = parts.size(); i-- > 0;) end = starts[i] = end - parts[i].second;
  return starts;
}

// The worker's imports of torch and onnxscript, inside the dependencies phase: they are its last work, in
// request order, so each starts where the imports after it (and the phase's end) leave it.
// Opening the runtime, inside the dependencies phase too: it starts with the phase, beside the worker's start.
void report_imports(const StageContext& context, const RunPhase& dependencies, const RunObserver& observer) {
  if (context.runtime) {
    observer.on_phase({"runtime_open", dependencies.profile, std::nullopt, dependencies.start_s,
                       context.times.runtime_open_seconds});
  }
  const auto& imports = context.times.import_seconds;
  const std::vector<double> starts = starts_ending_with(dependencies, imports);
  for (std::size_t i = 0; i < imports.size(); ++i) {
    if (imports[i].first == "torch" || imports[i].first == "onnxscript") {
      observer.on_phase({"import_" + imports[i].first, dependencies.profile, dependencies.worker, starts[i],
                         imports[i].second});
    }
  }
}

// A module export's steps (worker/PROTOCOL.md, "module_export": step_seconds, then storing the tensors), inside
// the export phase as "export_<step>", in order: they are its last work, so the last ends with the phase.
void report_export_steps(const StageContext& context, const RunPhase& exported, const RunObserver& observer) {
  const auto& steps = context.times.export_step_seconds;
  const std::vector<double> starts = starts_ending_with(exported, steps);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    observer.on_phase({"export_" + steps[i].first, exported.profile, exported.worker, starts[i], steps[i].second});
  }
}

// A phase of `profile` from `start` to `end`; the worker's phases name the worker that served them (worker >= 0).
RunPhase phase_of(const RunObserver& observer, const char* name, const std::string& profile, int worker,
                  Clock::time_point start, Clock::time_point end) {
  RunPhase phase{name, profile, std::nullopt, observer.since_start(start),
                 std::chrono::duration<double>(end - start).count()};
  if (worker >= 0) phase.worker = worker;
  return phase;
}

// stages/pipeline.cc's loop over `units` (run_stages), with the observer told when each stage starts and how
// long it took. Returns whether every stage passed. `warm` is the worker's part's (null for the runtime's part).
bool run_observed_stages(StageContext& context, std::span<const StageUnit> units, const std::string& profile,
                         const RunObserver* observer, WarmWorker* warm, const ExporterClient* handed) {
  StageHook hook;
  if (observer != nullptr && observer->on_stage) {
    hook.before = [&](Stage stage) { observer->on_stage(profile, std::string(stage_name(stage))); };
  }
  hook.after = [&](Stage stage, Clock::time_point start, Clock::time_point end) {
    if (warm != nullptr && stage == Stage::dependencies) count_new_worker(context, *warm, handed);
    if (observer != nullptr && observer->on_phase) {
      const RunPhase phase =
          phase_of(*observer, phase_name(stage), profile, warm != nullptr ? warm->serial : -1, start, end);
      observer->on_phase(phase);
      if (stage == Stage::dependencies) report_imports(context, phase, *observer);
      if (stage == Stage::export_model) report_export_steps(context, phase, *observer);
    }
  };
  return run_stages(context, units, hook);
}

// The C++ reference model of a profile: the built-in net's (a kind with a native net); none for a module or an
// ONNX file, whose references are stored by their export or import (§10, §11).
std::unique_ptr<ReferenceModel> reference_model_of(const Profile& profile) {
  return model_kind_facts(profile.kind()).native_net ? make_reference_model(profile.feed_forward().model) : nullptr;
}

}  // namespace

// One profile between its two parts: what its stages share, and whether the worker's part passed.
struct ProfileRunState {
  ProfileRunState(const Profile& profile_, const std::filesystem::path& root, const RunOptions& options_)
      : profile(profile_),
        observer(options_.observer),
        model(reference_model_of(profile)),
        record(blank_record_of(profile, options_.source ? *options_.source : detect_source(options_.source_revision),
                               model ? model->weights_sha256() : std::string(), options_.report_folder)),
        context(record, root, model.get(), &profile),
        options(options_) {
    record.runtime.session = session_to_run(record, options.session);  // refused before anything runs
    record.runtime.provider_options = provider_options_to_run(record, options.session);
    record.settle_format_for_settings();  // a tested profile under other settings: §11's kind built-in
  }

  const Profile profile;
  const std::shared_ptr<RunObserver> observer;
  const std::unique_ptr<ReferenceModel> model;  // null for a module or an ONNX file (reference_model_of)
  Record record;
  StageContext context;
  const RunOptions options;
  bool worker_part_passed = false;
};

StartedProfile::StartedProfile(std::unique_ptr<ProfileRunState> state) : state_(std::move(state)) {}
StartedProfile::StartedProfile(StartedProfile&&) noexcept = default;
StartedProfile& StartedProfile::operator=(StartedProfile&&) noexcept = default;
StartedProfile::~StartedProfile() = default;

nlohmann::json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options) {
  WarmWorker none;
  return run_profile(profile, root, options, none);
}

nlohmann::json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options,
                           WarmWorker& warm) {
  return finish_profile(start_profile(profile, root, options, warm));
}

StartedProfile start_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options,
                             WarmWorker& warm) {
  require_valid(profile);
  require_free_profile_folder(root, profile.name);
  auto state = std::make_unique<ProfileRunState>(profile, root, options);
  StageContext& context = state->context;
  context.open_runtime = options.open_runtime;
  context.runtime_library = options.onnxruntime_library;
  context.worker_command = default_worker_command(options.worker);
  context.worker_timeout = default_worker_timeout(options.worker_timeout);
  if (warm.client && warm.client->running()) {
    warm.client->clear_log();
    context.exporter = std::move(warm.client);
  }
  warm.client.reset();
  const ExporterClient* handed = context.exporter.get();
  const RunObserver* observer = options.observer.get();
  state->worker_part_passed =
      run_observed_stages(context, kRunWorkerStages, profile.name, observer, &warm, handed);
  if (state->worker_part_passed) {
    throw_if_interrupted();
    const Clock::time_point start = Clock::now();
    prepare_parity(context);  // the torch reference, while this profile still has the worker
    if (observer != nullptr && observer->on_phase) {
      observer->on_phase(phase_of(*observer, "reference", profile.name, warm.serial, start, Clock::now()));
    }
  }
  if (context.exporter && context.exporter->running()) {
    warm.client = std::move(context.exporter);  // the next profile's worker
  } else if (context.exporter) {
    context.exporter->stop();
  }
  context.exporter.reset();
  return StartedProfile(std::move(state));
}

nlohmann::json finish_profile(StartedProfile started) {
  ProfileRunState& state = *started.state_;
  const RunObserver* observer = state.observer.get();
  if (state.worker_part_passed) {
    run_observed_stages(state.context, kRunRuntimeStages, state.profile.name, observer, nullptr, nullptr);
    localise_record(state.context, state.options.localize, state.options.localise_limits, std::nullopt, state.options);
    keep_warm_worker(std::move(state.context.exporter));  // a localisation's worker: the next call's, or stopped
  }
  state.record.finalize();
  if (observer != nullptr && observer->on_profile_end) observer->on_profile_end(state.profile.name);
  return state.record.to_json();
}

}  // namespace nnx
