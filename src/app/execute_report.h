// The one execute sequence every front end calls (doc/architecture.md, "The data flow of execute").
//
// `execute_report` takes a document (one record or a report, doc/record-format.md §7–§8): installs the
// interrupt handlers for its duration; refuses, before executing anything, an output path that breaks the
// output-path rule (artifacts/output_paths.h: not a regular or new file, the document's own file, inside the
// root) or cannot be written, and any record execute_record would refuse (app/execute_record.h
// record_to_execute: invalid, unchecked, or its profile folder missing, a usage error; require_executable_with:
// a module record's factory file under the torch reference, resolved against the folder of `document_file`,
// missing or not the record's bytes) — except that a report's record with nothing to execute (its check did
// not pass: nothing_to_execute; still validated) is kept as it is, byte for byte, and only one record alone
// is refused for it; executes every other record with its own reference
// (app/execute_record.h execution_reference: the caller's, else the record's default; validated, hashes
// verified before anything is loaded); writes the result atomically when an output path is given (a report
// for a report, one record for a record, every record validated first); and returns the records in the
// document's order and the exit code, record/report.h exit_code_for's: the first failed record's, as `run`'s.
// With `keep_outputs`, the outputs folder beside the output (stages/kept_outputs.h) is checked before anything
// runs and written after the output.
// No usable runtime is RuntimeUnavailable (exit 10).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run_options.h"

namespace nnx {

struct ExecuteRequest {
  nlohmann::json document;                    // a record or a report
  std::filesystem::path root;                 // the artifacts root
  std::optional<std::filesystem::path> output;  // written atomically when given
  ExecuteOptions options;
  std::optional<std::filesystem::path> document_file;  // the file `document` was read from, when it was
  // --keep-outputs: every compared case's outputs and truth into kept_outputs_folder(output), with the sha256
  // of the output as written (stages/kept_outputs.h); needs `output` (UsageError otherwise).
  bool keep_outputs = false;
};

struct ExecuteOutcome {
  std::vector<nlohmann::json> records;
  int exit_code = 0;
};

ExecuteOutcome execute_report(const ExecuteRequest& request);

}  // namespace nnx
