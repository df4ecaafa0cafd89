// What a front end may watch of a run without touching the record (doc/architecture.md, "Progress and
// timings"): `on_stage` is called when a profile's stage starts (the live progress line), `on_phase` when a
// phase ends, with its wall time relative to the observer's clock. Phase names are those of `run --timings`:
// "worker_start" (the dependencies stage: starting the worker and its dependency imports), "export" (and a
// module export's steps within it, "export_<step>": app/run_profile.cc report_export_steps),
// "check", "reference" (parity's reference, asked of the worker: stages.h prepare_parity), "load", "parity"
// (per profile) and "write" (the report, profile null); `on_profile_end` when a profile's record is final.
// Each is optional. A run's lanes (one per worker, up to `run --jobs N`) each have two threads (the
// worker's part of one profile beside the runtime's part of the one before: app/run_profile.h), which call
// them concurrently: every callback must be thread-safe (cli/run_progress.cc takes one mutex).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace nnx {

struct RunPhase {
  std::string name;
  std::optional<std::string> profile;  // null for run-wide phases
  std::optional<int> worker;           // the worker that served the phase, when one did
  double start_s = 0.0;                // since the observer's clock started
  double seconds = 0.0;
};

struct RunObserver {
  std::chrono::steady_clock::time_point clock_start = std::chrono::steady_clock::now();
  std::function<void(const std::string& profile, const std::string& stage)> on_stage;
  std::function<void(const RunPhase& phase)> on_phase;
  std::function<void(const std::string& profile)> on_profile_end;

  double since_start(std::chrono::steady_clock::time_point t) const {
    return std::chrono::duration<double>(t - clock_start).count();
  }
};

}  // namespace nnx
