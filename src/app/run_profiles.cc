#include "app/run_profiles.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

#include "app/run_profile.h"
#include "app/source.h"
#include "app/worker_pool.h"
#include "artifacts/layout.h"
#include "base/error.h"
#include "base/failure.h"
#include "base/front_end.h"
#include "base/nearest_name.h"
#include "runtime/runtime_telemetry.h"

namespace nnx {
namespace {

// Lowers the calling thread's priority by 10 nice steps, to at most 19 (Linux: the nice value is a thread's
// own). A lane's finishing thread calls it: its load and parity are off the run's critical path, which is
// the worker's next request. On 2 cores a worker woken beside them waited 1-2 ms for a core (a warm
// profile's dependencies answer took 1.5 ms instead of 0.2 ms; `run --timings`, 16 profiles); 5 steps
// still left some requests waiting. The thread keeps a tenth of a core against busy ones, so a loaded
// machine slows it rather than stopping it. Where it fails (no permission) the thread runs as it is.
void yield_to_the_worker() {
  const id_t thread = static_cast<id_t>(gettid());
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, thread);
  if (errno == 0) setpriority(PRIO_PROCESS, thread, std::min(nice + 10, 19));
}

// A lane's one-place handoff from its worker's thread to its finishing thread: the started profile (and its
// index) waiting for its runtime part. `put` waits while the place is taken, so that at most two profiles of
// a lane are between their parts; `take` waits for one, and returns false once closed and empty.
class StartedHandoff {
 public:
  void put(std::size_t index, StartedProfile started) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !waiting_; });
    waiting_.emplace(index, std::move(started));
    changed_.notify_all();
  }
  bool take(std::size_t& index, std::optional<StartedProfile>& started) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return waiting_ || closed_; });
    if (!waiting_) return false;
    index = waiting_->first;
    started.emplace(std::move(waiting_->second));
    waiting_.reset();
    changed_.notify_all();
    return true;
  }
  void close() {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::pair<std::size_t, StartedProfile>> waiting_;
  bool closed_ = false;
};

// The profiles of a run handed out to its lanes in order, the records put back in that order, and the
// first exception a thread met (Interrupted preferred: the run stops for the signal, not for what it broke).
class ProfileQueue {
 public:
  ProfileQueue(const std::vector<Profile>& profiles, const std::filesystem::path& root, const RunOptions& options)
      : profiles_(profiles), root_(root), options_(options), records_(profiles.size()) {}

  // One lane: its own warm worker serves the worker's part of each profile it takes, on this thread, while
  // a finishing thread runs the runtime's part of the profile before (app/run_profile.h): the worker exports
  // the next profile while the runtime loads and runs the last. Stopped when no profile is left.
  void serve(WarmWorker warm) {
    StartedHandoff handoff;
    std::optional<std::thread> finisher;
    try {
      finisher.emplace([this, &handoff] { finish_each(handoff); });
    } catch (const std::system_error&) {
      // no thread to be had: this one runs both parts of each profile in turn
    }
    try {
      for (std::size_t i = next_++; i < profiles_.size() && !stopped_; i = next_++) {
        StartedProfile started = start_profile(profiles_[i], root_, options_, warm);
        if (finisher) {
          handoff.put(i, std::move(started));
        } else {
          records_[i] = finish_profile(std::move(started));
        }
      }
    } catch (...) {
      keep(std::current_exception());
    }
    keep_warm_worker(std::move(warm.client));  // the next call's worker, or stopped (app/worker_pool.h)
    handoff.close();
    if (finisher) finisher->join();
  }

  std::vector<json> take_records() {
    if (failure_) std::rethrow_exception(failure_);
    return std::move(records_);
  }

 private:
  // A lane's finishing thread: the runtime's part of each profile its worker's thread hands over. After a
  // failure the profiles still handed over are dropped unfinished (the run rethrows it, no report is made).
  void finish_each(StartedHandoff& handoff) {
    yield_to_the_worker();
    std::size_t index = 0;
    std::optional<StartedProfile> started;
    while (handoff.take(index, started)) {
      try {
        if (!stopped_) records_[index] = finish_profile(std::move(*started));
      } catch (...) {
        keep(std::current_exception());
      }
      started.reset();
    }
  }

  void keep(std::exception_ptr error) {
    stopped_ = true;  // the other threads take no further profile
    const std::lock_guard<std::mutex> lock(mutex_);
    bool interrupted = false;
    try {
      std::rethrow_exception(error);
    } catch (const Interrupted&) {
      interrupted = true;
    } catch (...) {
    }
    if (!failure_ || (interrupted && !failure_interrupted_)) {
      failure_ = error;
      failure_interrupted_ = interrupted;
    }
  }

  const std::vector<Profile>& profiles_;
  const std::filesystem::path& root_;
  const RunOptions& options_;
  std::vector<json> records_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stopped_{false};
  std::mutex mutex_;
  std::exception_ptr failure_;
  bool failure_interrupted_ = false;
};

}  // namespace

int run_jobs(const RunOptions& options) {
  if (options.jobs) {
    if (*options.jobs < 1) {
      throw UsageError(std::string(spelled(Argument::jobs)) + " must be at least 1, not " +
                       std::to_string(*options.jobs));
    }
    return *options.jobs;
  }
  return 0;
}

// What a profile costs a worker, in seconds of one core as measured by `run --timings` (BENCHMARKS.md,
// "worker start" and the scaling table): only their ratios matter. A warm export (with its check, load and
// parity) against a worker's start: torch's import plus the exporter's first, cold export (for dynamo also
// onnxscript's import).
struct ExporterCost {
  double warm_profile_s;
  double worker_start_s;
};
constexpr ExporterCost kTorchScriptCost{0.07, 2.5};
constexpr ExporterCost kDynamoCost{1.2, 6.5};

std::size_t auto_workers(const std::vector<Profile>& profiles, unsigned cores) {
  double warm_work_s = 0.0;
  double worker_start_s = 0.0;
  for (const auto& p : profiles) {
    const ExporterCost& cost = p.dynamo() ? kDynamoCost : kTorchScriptCost;
    warm_work_s += cost.warm_profile_s;
    worker_start_s = std::max(worker_start_s, cost.worker_start_s);
  }
  const auto paid_for = static_cast<std::size_t>(worker_start_s > 0 ? warm_work_s / worker_start_s : 0.0);
  return std::clamp<std::size_t>(paid_for, 1, std::max<std::size_t>(1, cores));
}

std::vector<Profile> tested_profiles_named(const std::vector<std::string>& names) {
  if (names.empty()) return tested_profiles();
  std::vector<Profile> chosen;
  for (const auto& name : names) {
    Profile p = tested_profile_named(name);  // an unknown name: the one usage error (profile/profile.h)
    bool seen = false;
    for (const auto& c : chosen) seen = seen || c.name == name;
    if (!seen) chosen.push_back(std::move(p));
  }
  return chosen;
}

std::vector<Profile> profiles_named(std::vector<Profile> among, const std::vector<std::string>& names,
                                    const std::string& source) {
  if (names.empty()) return among;
  std::vector<std::string> known;
  for (const auto& p : among) known.push_back(p.name);
  std::vector<Profile> chosen;
  for (const auto& name : names) {
    const auto found = std::find(known.begin(), known.end(), name);
    if (found == known.end()) {
      std::string listed;
      for (const auto& k : known) listed += (listed.empty() ? "" : ", ") + k;
      throw UsageError("unknown profile \"" + name + "\" in " + source + did_you_mean(name, known) +
                       " (its profiles: " + listed + ")");
    }
    bool seen = false;
    for (const auto& c : chosen) seen = seen || c.name == name;
    if (!seen) chosen.push_back(among[static_cast<std::size_t>(found - known.begin())]);
  }
  return chosen;
}

std::vector<json> run_profiles(const std::vector<Profile>& profiles, const std::filesystem::path& root,
                               const RunOptions& given, bool force) {
  const int jobs = run_jobs(given);
  std::vector<Profile> chosen;
  for (const auto& p : profiles) {
    require_valid(p);
    bool seen = false;
    for (const auto& c : chosen) {
      if (c.name != p.name) continue;
      if (c.canonical_settings_text() != p.canonical_settings_text()) {
        throw ConformanceError("two profiles named \"" + p.name + "\" with different settings would share " +
                               profile_folder(root, p.name).string());
      }
      seen = true;
    }
    if (!seen) chosen.push_back(p);
  }
  for (const auto& p : chosen) {
    if (force) {
      clear_profile_folder(root, p.name);
    } else {
      require_free_profile_folder(root, p.name);
    }
  }
  // What every profile shares is settled before any thread starts: the source block (git asked once), and
  // the runtime's telemetry switches, which change the environment (setenv is not safe beside other threads).
  RunOptions options = given;
  if (!options.source) options.source = detect_source(options.source_revision);
  turn_off_runtime_telemetry();
  // Up to `jobs` threads, each with its own warm worker serving the profiles it takes in turn; one worker
  // counter, so that `run --timings` numbers them across the run. The calling thread is the first of them.
  const std::size_t workers =
      jobs > 0 ? static_cast<std::size_t>(jobs) : auto_workers(chosen, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>(workers, chosen.size());
  ProfileQueue queue(chosen, root, options);
  const auto started = std::make_shared<std::atomic<int>>(0);
  const WorkerCommand command = default_worker_command(options.worker);
  const std::chrono::milliseconds timeout = default_worker_timeout(options.worker_timeout);
  const auto lane_worker = [&command, timeout, started] {
    WarmWorker warm{take_warm_worker(command, timeout), -1, started};  // a call before left it (worker_pool.h)
    if (warm.client) warm.serial = (*started)++;
    return warm;
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back([&queue, &lane_worker] { queue.serve(lane_worker()); });
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones running take every profile
    }
  }
  queue.serve(lane_worker());
  for (auto& helper : helpers) helper.join();
  return queue.take_records();
}

}  // namespace nnx
