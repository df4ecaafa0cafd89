// Running several profiles into one artifact root (doc/record-format.md §8), shared by the command line and the
// Python package so that both choose, check and clear folders the same way.
//
// `tested_profiles_named` maps tested names to profiles in the given order, each once (an empty list means
// every tested profile, torchscript first); an unknown name is profile/profile.h's UsageError
// (`tested_profile_named`); `profiles_named` picks a profile file's the same way. `run_profiles` refuses, before
// anything is written, an invalid profile (ConformanceError), two profiles of one name with different
// settings (ConformanceError) and — without `force` — a profile folder that exists as a file or non-empty
// folder (FolderInUse); with `force` it clears only the chosen profiles' folders (a symlinked root or
// profile folder is refused with UsageError, never followed). Profiles of one name and settings run once.
// Then up to `run_jobs(options)` lanes take the profiles in order, each with its own exporter worker that
// it hands from one of its profiles to the next while it runs (app/run_profile.h: WarmWorker), and with a
// second thread that runs each profile's runtime part (load, parity) while the worker serves the next
// (start_profile, finish_profile); the records come back in the profiles' order. A profile's failure is
// its record's; an exception of one thread (Interrupted after SIGINT/SIGTERM, an I/O error) lets no lane
// start another profile, every lane stops its worker, and it is rethrown (Interrupted first) once all
// have joined.
//
// `run_jobs`: RunOptions::jobs (below 1 is a UsageError), or 0 when unset: "auto". The run then starts
// `auto_workers(profiles, cores)` workers: one, plus one per worker's start-up that the profiles' warm
// export time would pay for, at most one per core (doc/architecture.md, "The worker's lifetime"). A worker is a
// process that imports torch (and onnxscript for dynamo) and warms its exporter before its exports are fast,
// so on few cores short exports run fastest, and leanest, on one worker.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/profile.h"
#include "app/run_options.h"

namespace nnx {

using json = nlohmann::json;

std::vector<Profile> tested_profiles_named(const std::vector<std::string>& names);
// The profiles of `among` (a profile file's, read from `source`) named in `names`, in the given order, each
// once; an empty list means all of them. An unknown name is a UsageError naming `source`, the nearest name
// (base/nearest_name.h) and every name `among` holds (`run --profile-file F --profile NAME`).
std::vector<Profile> profiles_named(std::vector<Profile> among, const std::vector<std::string>& names,
                                    const std::string& source);

int run_jobs(const RunOptions& options);
std::size_t auto_workers(const std::vector<Profile>& profiles, unsigned cores);

std::vector<json> run_profiles(const std::vector<Profile>& profiles, const std::filesystem::path& root,
                               const RunOptions& options = {}, bool force = false);

}  // namespace nnx
