// Running one profile: the five stages in order, each recorded on its own (doc/record-format.md §4, §8).
//
// `run_profile` refuses, before anything is written, an invalid Profile (or one reusing a tested name)
// with ConformanceError and a profile folder `root/<name>` that exists as a file or non-empty folder with
// FolderInUse (artifacts/layout.h). Otherwise it never throws for a stage failure: it returns the record,
// whose stages say what passed. A stage after one that did not pass stays not_run. NNX_TIMING=1 prints one
// line of wall times per profile on stderr (for bench/; nothing enters the record).
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "app/run_options.h"
#include "profile/profile.h"

namespace nnx {

nlohmann::json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options = {});

}  // namespace nnx
