// Running several profiles into one artifact root (doc/record-format.md §8), shared by the command line and the
// Python package so that both choose, check and clear folders the same way.
//
// `tested_profiles_named` maps tested names to profiles in the given order, each once (an empty list means
// every tested profile, torchscript first); an unknown name is a UsageError. `run_profiles` refuses, before
// anything is written, an invalid profile (ConformanceError), two profiles of one name with different
// settings (ConformanceError) and — without `force` — a profile folder that exists as a file or non-empty
// folder (FolderInUse); with `force` it clears only the chosen profiles' folders (a symlinked root or
// profile folder is refused with UsageError, never followed). Profiles of one name and settings run once.
// Then it runs each profile in order, handing the exporter worker from one profile to the next while it
// runs (app/run_profile.h: WarmWorker), and returns the records.
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

std::vector<json> run_profiles(const std::vector<Profile>& profiles, const std::filesystem::path& root,
                               const RunOptions& options = {}, bool force = false);

}  // namespace nnx
