// validate and verify of a record or a report (doc/record-format.md §6, §7): the one sequence the command
// line's `validate`/`verify` (cli/record_commands.cc), the C++ API (include/nnx/conformance.h) and the Python
// module (python/bindings.h) call, each printing or raising what it finds in its own words.
//
// `check_records(records, root)`: each record gets its label (its profile, else "record <i>") and every
// problem `record_problems` finds; with a root, a valid record's artifacts are then verified
// (`artifact_problems`), and an artifact that cannot be read is kept as that record's `unreadable` message
// (ArtifactIoError's words) while the others are still checked. An invalid record's artifacts are not read.
// `records_in(file, document)`: the file read as strict JSON and its records (one record or a report's);
// a JsonError or a malformed report throws, for the front end to name.
// `artifact_problems` is the verify step alone (a record, or a value holding only its "artifacts"): what
// Python's verify_artifacts reports without validating first, as the original does.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

using json = nlohmann::json;

struct RecordCheck {
  std::string label;                         // the record's profile, else "record <i>"
  std::vector<std::string> invalid;          // record_problems: empty for a valid record
  bool verified = false;                     // its artifacts were verified (a root given, the record valid)
  std::vector<std::string> artifacts;        // what verify_artifacts found (when verified)
  std::optional<std::string> unreadable;     // an artifact that could not be read (then not verified)

  bool ok() const { return invalid.empty() && artifacts.empty() && !unreadable; }
};

struct DocumentCheck {
  std::vector<RecordCheck> records;

  // At least one record, and every one ok.
  bool ok() const;
};

std::vector<json> records_in(const std::filesystem::path& file, json& document);

std::string record_label(const json& record, std::size_t index);
std::vector<std::string> artifact_problems(const json& record, const std::filesystem::path& root);

DocumentCheck check_records(const std::vector<json>& records, const std::filesystem::path* root = nullptr);

}  // namespace nnx
