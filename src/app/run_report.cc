#include "app/run_report.h"

#include <chrono>

#include <stdexcept>

#include "app/run_profiles.h"
#include "artifacts/layout.h"
#include "artifacts/output_paths.h"
#include "artifacts/root_lock.h"
#include "base/atomic_file.h"
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
  const auto problems = memory_problems(profiles, limit,
                                        options.memory_limit_bytes ? "--memory-limit"
                                                                   : "half of the memory available; --memory-limit "
                                                                     "MIB sets another");
  if (problems.empty()) return;
  std::string text;
  for (const auto& p : problems) text += (text.empty() ? "" : "\n") + p;
  throw UsageError(text);
}

}  // namespace

RunOutcome run_to_report(const RunRequest& request) {
  const ScopedInterruptHandlers interrupts;
  const RunOptions options = with_checked_bounds(request.options);
  check_memory(request.profiles, options);
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
