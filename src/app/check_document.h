// validate and verify of a record or a report (doc/record-format.md §6, §7): the one sequence the command
// line's `validate`/`verify` (cli/record_commands.cc), the C++ API (include/nnx/conformance.h) and the Python
// module (python/bindings.h) call, each printing or raising what it finds in its own words.
//
// `check_records(records, root)`: each record gets its label (its profile, else "record <i>") and every
// problem `record_problems` finds; with a root, a valid record's artifacts are then verified
// (`artifact_problems`), and an artifact that cannot be read is kept as that record's `unreadable` message
// (ArtifactIoError's words) while the others are still checked. An invalid record's artifacts are not read.
// `records_in(file, document)`: the file read as strict JSON and its records (one record or a report's);
// a JsonError throws, for the front end to name; a malformed report, a runtime matrix or a value that is no
// document of ours throws records_of's refusal, naming the file.
// `artifact_problems` is the verify step alone (a record, or a value holding only its "artifacts"): what
// Python's verify_artifacts reports without validating first, as the original does.
//
// One verdict per problem (doc/record-format.md §7): a record that breaks a rule is an error (exit 1); its
// artifacts not verifying, or unreadable, are kUnverifiedArtifacts (hash-mismatch, exit 14:
// artifacts/artifacts.h), as the load stage of execute records them; a root or profile folder that does not
// exist is a UsageError (exit 2) thrown by verify_artifacts. A document's exit code is its first failing
// record's, as a run's is.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/failure.h"

namespace nnx {

using json = nlohmann::json;

struct RecordCheck {
  std::string label;                         // the record's profile, else "record <i>"
  std::vector<std::string> invalid;          // record_problems: empty for a valid record
  bool verified = false;                     // its artifacts were verified (a root given, the record valid)
  std::vector<std::string> artifacts;        // what verify_artifacts found (when verified)
  std::optional<std::string> unreadable;     // an artifact that could not be read (then not verified)

  bool ok() const { return invalid.empty() && artifacts.empty() && !unreadable; }
  // nullopt when ok or invalid; else kUnverifiedArtifacts.
  std::optional<FailureClass> failure() const;
  // 0 when ok, 1 when invalid, else the failure's exit code.
  int exit_code() const;
};

struct DocumentCheck {
  std::vector<RecordCheck> records;

  // At least one record, and every one ok.
  bool ok() const;
  // 0 when ok, 1 without records, else the first failing record's exit_code.
  int exit_code() const;
};

std::vector<json> records_in(const std::filesystem::path& file, json& document);
// records_of(document) (app/execute_record.h), its refusal prefixed with `file`.
std::vector<json> records_named(const std::filesystem::path& file, const json& document);

std::string record_label(const json& record, std::size_t index);
std::vector<std::string> artifact_problems(const json& record, const std::filesystem::path& root);

DocumentCheck check_records(const std::vector<json>& records, const std::filesystem::path* root = nullptr);

}  // namespace nnx
