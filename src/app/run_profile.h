// Running a profile: the five stages in order, each recorded on its own (record-format §4, §8).
//
// `run_profile` refuses, before anything is written, an invalid Profile (or one reusing a tested name)
// with ConformanceError and a profile folder `root/<name>` that exists as a file or non-empty folder with
// FolderInUse. Otherwise it never throws for a stage failure: it returns the record, whose stages say
// what passed. A stage after one that did not pass stays not_run.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/failure.h"
#include "profile/profile.h"
#include "record/record.h"
#include "worker/worker_process.h"

namespace nnx {

using json = nlohmann::json;

class FolderInUse : public UsageError {
 public:
  using UsageError::UsageError;
};

struct RunOptions {
  std::optional<std::filesystem::path> onnxruntime_library;  // see onnx_runtime.h for the search order
  std::optional<WorkerCommand> worker;                      // default: default_worker_command()
  std::optional<std::string> source_revision;               // given; an empty string means null
  // Per worker request; default: default_worker_timeout() (NNX_WORKER_TIMEOUT_SECONDS, else 600 s).
  std::optional<std::chrono::milliseconds> worker_timeout;
};

json run_profile(const Profile& profile, const std::filesystem::path& root, const RunOptions& options = {});

// Refuses a profile folder that exists as a file or a non-empty folder (FolderInUse).
void require_free_profile_folder(const std::filesystem::path& root, const std::string& name);

// The source block: given revision, else git of this software's checkout, else unknown.
SourceInfo detect_source(const std::optional<std::string>& given_revision);

}  // namespace nnx
