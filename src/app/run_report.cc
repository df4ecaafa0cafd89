#include "app/run_report.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "app/execute_record.h"
#include "app/run_profiles.h"
#include "artifacts/layout.h"
#include "artifacts/output_paths.h"
#include "artifacts/root_lock.h"
#include "base/atomic_file.h"
#include "base/front_end.h"
#include "base/interrupt.h"
#include "profile/memory_budget.h"
#include "record/report.h"
#include "worker/worker_limits.h"

namespace nnx {
namespace {

// The environment's worker bounds, read once before anything runs: a malformed value is a usage error.
RunOptions with_checked_bounds(RunOptions options) {
  try {
    if (!options.worker_timeout) options.worker_timeout = default_worker_timeout();
    max_worker_output_bytes();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return options;
}

// Refuses, before anything runs, a run whose input cases would not fit in memory (profile/memory_budget.h).
void check_memory(const std::vector<Profile>& profiles, const RunOptions& options) {
  const std::uint64_t limit = options.memory_limit_bytes.value_or(machine_memory_limit());
  const std::string other(spelled(Argument::memory_limit));
  const auto problems = memory_problems(
      profiles, limit,
      std::string(options.memory_limit_bytes ? "the limit given" : "half of the memory available") +
          (other.empty() ? "" : "; " + other + " sets another"));
  if (problems.empty()) return;
  std::string text;
  for (const auto& p : problems) text += (text.empty() ? "" : "\n") + p;
  throw UsageError(text);
}

// Refuses a profile whose execution provider its runtime cannot run in this build, before any folder is
// touched or anything exported: the provider, the providers there are and the way out are named. The CPU
// provider is every build's, so only a profile naming another opens its runtime here; a runtime that cannot
// be opened is left to the dependencies stage (its missing-dependency record).
void require_runnable_providers(const std::vector<Profile>& profiles, const RunOptions& options) {
  const SessionSettings defaults;
  for (const auto& p : profiles) {
    if (p.provider == defaults.provider || !p.problems().empty()) continue;  // an invalid one: require_valid's
    std::shared_ptr<Runtime> runtime;
    try {
      runtime = options.open_runtime(p.runtime, options.onnxruntime_library);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::runtime_unavailable) continue;
      throw;
    }
    const std::vector<std::string> available = runtime->available_providers();
    if (std::find(available.begin(), available.end(), p.provider) != available.end()) continue;
    std::string list;
    for (const auto& a : available) list += (list.empty() ? "" : ", ") + a;
    throw UsageError("profile \"" + p.name + "\": provider " + p.provider + " is not available in ONNX Runtime " +
                     runtime->version() + " (" + runtime->location() + "; available: " + list + "): run it on " +
                     defaults.provider + ", or name a library built with " + p.provider + " (" +
                     std::string(spelled(Argument::onnxruntime)) + ")");
  }
}

}  // namespace

RunOutcome run_to_report(const RunRequest& request) {
  const ScopedInterruptHandlers interrupts;
  RunOptions options = with_checked_bounds(request.options);
  if (request.report_path) options.report_folder = std::filesystem::absolute(*request.report_path).parent_path();
  check_memory(request.profiles, options);
  require_runnable_providers(request.profiles, options);
  for (const auto& p : request.profiles) {  // settings outside §11's are refused before anything runs
    const Record blank = blank_record_of(p, SourceInfo{}, std::string());
    session_to_run(blank, options.session);
    provider_options_to_run(blank, options.session);
  }
  if (request.report_path) {
    check_output_paths({{{"the report path", *request.report_path}}, {}, {{"the artifacts root", request.root}}});
    require_writable_file_path(*request.report_path);
  }
  check_artifact_root(request.root, request.force);
  RunOutcome outcome;
  {
    const ArtifactRootLock lock(request.root);  // held until the report is written
    outcome.records = run_profiles(request.profiles, request.root, options, request.force);
    throw_if_interrupted();  // a signal during the run: the previous report stays as it was
    outcome.report = make_report(outcome.records);
    if (request.report_path) {
      const auto start = std::chrono::steady_clock::now();
      save_report(outcome.report, *request.report_path);
      if (options.observer && options.observer->on_phase) {
        options.observer->on_phase({"write", std::nullopt, std::nullopt, options.observer->since_start(start),
                                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
      }
    }
  }
  outcome.exit_code = exit_code_for(outcome.records);
  return outcome;
}

}  // namespace nnx
