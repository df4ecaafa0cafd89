// Running one profile: the five stages in order, each recorded on its own (doc/record-format.md §4, §8).
//
// `run_profile` refuses, before anything is written, an invalid Profile (or one reusing a tested name)
// with ConformanceError, session settings (RunOptions::session) outside §11's with UsageError
// (app/execute_record.h session_to_run; the record's runtime.session says the ones it runs with, and a tested
// profile's record under other settings than the brief's is §11's kind "built-in"), and a
// profile folder `root/<name>` that exists as a file or non-empty folder with
// FolderInUse (artifacts/layout.h). Otherwise it never throws for a stage failure: it returns the record,
// whose stages say what passed. A stage after one that did not pass stays not_run. Wall times go to
// RunOptions::observer only (`run --timings`; nothing enters the record).
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/run_options.h"
#include "profile/profile.h"
#include "worker/exporter_client.h"

namespace nnx {

nlohmann::json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options = {});

// The exporter worker a run hands from one profile to the next (doc/architecture.md, "The worker's
// lifetime"): `client` is the warm worker or null, `serial` its number in the run (0, 1, ...; what
// `run --timings` calls "worker"), `started` how many workers the run has started — one counter shared by
// every WarmWorker of a run (one per thread with --jobs N), so that serials are unique in the run.
struct WarmWorker {
  std::unique_ptr<ExporterClient> client;
  int serial = -1;
  std::shared_ptr<std::atomic<int>> started = std::make_shared<std::atomic<int>>(0);
};

// As above, with `warm`'s worker (when it is still running) serving this profile instead of a new one;
// afterwards the worker is left in `warm` when it still runs (its log forgotten), and stopped otherwise.
nlohmann::json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options,
                           WarmWorker& warm);

// The same run in two parts, so that a run can overlap them (app/run_profiles.cc): `start_profile` runs the
// worker's part with `warm`'s worker (stages/stages.h kRunWorkerStages, then parity's reference:
// prepare_parity) and leaves the worker in `warm` as above; `finish_profile` runs the runtime's part
// (kRunRuntimeStages: load, parity) without the run's worker, then the localisation its options ask for
// (app/repro_record.h: an idle warm worker when there is one, else one of its own, handed to the pool after),
// and returns the final record. Each part may run on any
// thread, one after the other; run_profile is the two in a row. The refusals of run_profile are
// start_profile's.
struct ProfileRunState;
class StartedProfile {
 public:
  StartedProfile(StartedProfile&&) noexcept;
  StartedProfile& operator=(StartedProfile&&) noexcept;
  ~StartedProfile();

 private:
  explicit StartedProfile(std::unique_ptr<ProfileRunState> state);
  friend StartedProfile start_profile(const Profile&, const std::filesystem::path&, const RunOptions&, WarmWorker&);
  friend nlohmann::json finish_profile(StartedProfile started);
  std::unique_ptr<ProfileRunState> state_;
};

StartedProfile start_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options,
                             WarmWorker& warm);
nlohmann::json finish_profile(StartedProfile started);

}  // namespace nnx
