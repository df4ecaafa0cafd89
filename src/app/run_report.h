// The one run sequence every front end calls (the command line, the Python module, the brief's script
// through the module): doc/architecture.md, "The data flow of run".
//
// `run_to_report`, in order: installs the interrupt handlers for the run (base/interrupt.h; the previous
// handlers come back afterwards); refuses, before anything runs, a malformed worker bound in the
// environment (UsageError), input cases that would not fit in memory (profile/memory_budget.h; UsageError),
// a profile whose execution provider its runtime cannot run in this build (UsageError naming the provider,
// the providers available and the way out; only a provider other than the CPU one opens the runtime for
// this, and a runtime that cannot be opened is left to the dependencies stage's record), session settings
// outside §11's (app/execute_record.h session_to_run; UsageError: a tested profile under other settings than
// the brief's writes a successor-format record, §11's kind "built-in"), a report path
// that breaks the output-path rule (artifacts/output_paths.h: not a regular or new file, inside the
// artifacts root) or cannot be written, an artifacts root that is not a folder or is a symlink to be cleared;
// takes the root's lock (another run holding it: RootInUse); runs the profiles (app/run_profiles.h: folders
// checked or cleared first); after SIGINT/SIGTERM throws Interrupted without writing anything; writes the
// report atomically when a path is given; and returns the records, the report and the exit code
// (doc/record-format.md §1: 0, or the first failing record's class).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run_options.h"
#include "profile/profile.h"

namespace nnx {

struct RunRequest {
  std::vector<Profile> profiles;                   // in run order; one name with one settings runs once
  std::filesystem::path root;                      // the artifacts root
  std::optional<std::filesystem::path> report_path;  // written atomically when given
  bool force = false;                              // clear the chosen profiles' folders first
  RunOptions options;
};

struct RunOutcome {
  std::vector<nlohmann::json> records;
  nlohmann::json report;
  int exit_code = 0;
};

RunOutcome run_to_report(const RunRequest& request);

}  // namespace nnx
