#include "app/check_document.h"

#include "app/execute_record.h"
#include "artifacts/artifacts.h"
#include "base/error.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "record/validate_record.h"

namespace nnx {

bool DocumentCheck::ok() const {
  if (records.empty()) return false;
  for (const auto& r : records) {
    if (!r.ok()) return false;
  }
  return true;
}

std::optional<FailureClass> RecordCheck::failure() const {
  if (ok() || !invalid.empty()) return std::nullopt;
  return kUnverifiedArtifacts;
}

int RecordCheck::exit_code() const {
  if (ok()) return kExitPassed;
  const std::optional<FailureClass> cls = failure();
  return cls ? nnx::exit_code(*cls) : kExitError;
}

int DocumentCheck::exit_code() const {
  if (records.empty()) return kExitError;
  for (const auto& r : records) {
    if (!r.ok()) return r.exit_code();
  }
  return kExitPassed;
}

std::vector<json> records_in(const std::filesystem::path& file, json& document) {
  document = read_strict_json_file(file.string());
  return records_named(file, document);
}

std::vector<json> records_named(const std::filesystem::path& file, const json& document) {
  try {
    return records_of(document);
  } catch (const Error& e) {
    throw Error(e.kind(), file.string() + ": " + e.what());  // the file named: a report, record or nothing
  }
}

std::string record_label(const json& record, std::size_t index) {
  if (record.is_object() && record.contains(rf::kProfile) && record[rf::kProfile].is_string()) {
    return record[rf::kProfile].get<std::string>();
  }
  return "record " + std::to_string(index);
}

std::vector<std::string> artifact_problems(const json& record, const std::filesystem::path& root) {
  return verify_artifacts(record, root).problems;
}

DocumentCheck check_records(const std::vector<json>& records, const std::filesystem::path* root) {
  DocumentCheck check;
  check.records.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    RecordCheck& r = check.records.emplace_back();
    r.label = record_label(records[i], i);
    r.invalid = record_problems(records[i]);
    if (!r.invalid.empty() || root == nullptr) continue;
    try {
      r.artifacts = artifact_problems(records[i], *root);
      r.verified = true;
    } catch (const ArtifactIoError& e) {
      r.unreadable = e.what();
    }
  }
  return check;
}

}  // namespace nnx
