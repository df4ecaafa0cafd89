#include "record/report.h"

#include <algorithm>
#include <stdexcept>

#include "base/atomic_file.h"
#include "base/failure.h"
#include "base/json_python.h"
#include "base/module_record_vocabulary.h"
#include "record/record_format.h"
#include "record/validate_record.h"
#include "base/failure_diagnosis.h"

namespace nnx {

json make_report(const std::vector<json>& records) {
  bool passed = !records.empty();
  for (const auto& r : records) passed = passed && r.value(rf::kStatus, "") == rf::kPassed;
  return json{{rf::report_key::kFormat, kFormat},
              {rf::report_key::kStatus, passed ? rf::kPassed : rf::kFailed},
              {rf::report_key::kProfiles, records}};
}

void save_report(const json& report, const std::filesystem::path& path) {
  const char* profiles = rf::report_key::kProfiles;
  if (!report.is_object() || !report.contains(profiles) || !report[profiles].is_array()) {
    throw ConformanceError("a report needs a list of profiles");
  }
  std::string problems;
  for (std::size_t i = 0; i < report[profiles].size(); ++i) {
    for (const auto& p : record_problems(report[profiles][i])) {
      problems += "\n  " + std::string(profiles) + "[" + std::to_string(i) + "]: " + p;
    }
  }
  if (!problems.empty()) throw ConformanceError("refusing to write an invalid report:" + problems);
  write_file_atomically(path, dumps_pretty(report) + "\n");
}

namespace {

// `; exporter=<name>; onnxruntime=<version>` as far as the record states them.
std::string exporter_and_runtime(const json& r) {
  std::string text;
  if (r.contains(rf::kExporter) && r[rf::kExporter].is_object()) {
    text += "; exporter=" + r[rf::kExporter].value(rf::exporter_key::kName, "?");
  }
  if (r.contains(rf::kRuntime) && r[rf::kRuntime].is_object() && r[rf::kRuntime].contains(rf::runtime_key::kVersion) &&
      r[rf::kRuntime][rf::runtime_key::kVersion].is_string()) {
    text += "; onnxruntime=" + r[rf::kRuntime][rf::runtime_key::kVersion].get<std::string>();
  }
  return text;
}

// `; the tolerance cannot fail for <output>[, <output>...]` for a module record whose parity states a vacuous
// tolerance (doc/record-format.md §10), else "".
std::string vacuous_summary(const json& r) {
  const json* stages = r.contains(rf::kStages) && r[rf::kStages].is_object() ? &r[rf::kStages] : nullptr;
  const std::string parity(stage_name(Stage::parity));
  if (!stages || !stages->contains(parity) || !(*stages)[parity].is_object()) return "";
  const json& detail = (*stages)[parity].value(rf::stage_key::kDetail, json());
  if (!detail.is_object() || !detail.contains(rf::vacuous_key::kVacuousTolerance)) return "";
  std::string names;
  for (const auto& entry : detail[rf::vacuous_key::kVacuousTolerance]) {
    if (entry.is_object() && entry.contains(rf::vacuous_key::kOutput) && entry[rf::vacuous_key::kOutput].is_string()) {
      names += (names.empty() ? "" : ", ") + entry[rf::vacuous_key::kOutput].get<std::string>();
    }
  }
  return names.empty() ? "" : "; the tolerance cannot fail for " + names + " (an all-zero output would pass)";
}

// `[; max_abs_error=<largest>]; n/m input cases passed[; the tolerance cannot fail for ...]`
std::string case_summary(const json& r) {
  namespace key = rf::case_key;
  double worst = -1;
  std::size_t passed = 0, total = 0;
  if (r.contains(rf::kInputCases) && r[rf::kInputCases].is_array()) {
    for (const auto& c : r[rf::kInputCases]) {
      ++total;
      if (c.value(key::kPassed, false)) ++passed;
      if (c.contains(key::kMaxAbsError) && c[key::kMaxAbsError].is_number()) {
        worst = std::max(worst, c[key::kMaxAbsError].get<double>());
      }
    }
  }
  std::string text;
  if (worst >= 0) text += "; " + std::string(key::kMaxAbsError) + "=" + python_float_repr(worst);
  return text + "; " + std::to_string(passed) + "/" + std::to_string(total) + " input cases passed" +
         vacuous_summary(r);
}

}  // namespace

std::vector<std::string> summary_lines(const std::vector<json>& records) {
  std::vector<std::string> lines;
  for (const auto& r : records) {
    std::string line = r.value(rf::kProfile, "?") + ": " + r.value(rf::kStatus, "?");
    if (r.contains(rf::kFailure) && r[rf::kFailure].is_string()) {
      line += " (" + r[rf::kFailure].get<std::string>() + ")";
    }
    line += "; " + std::string(rf::kLevel) + "=" + r.value(rf::kLevel, "?");
    line += exporter_and_runtime(r);
    line += case_summary(r);
    lines.push_back(line);
    // A failed module or successor-format record's cause in words, one indented line each (base/failure_diagnosis.h).
    for (const auto& said : diagnosis_lines(diagnose(r, records))) lines.push_back("  " + said);
  }
  return lines;
}

int exit_code_for(const std::vector<json>& records) {
  if (records.empty()) return kExitError;
  for (const auto& r : records) {
    if (r.value(rf::kStatus, "") == rf::kPassed) continue;
    if (!r.contains(rf::kFailure) || !r[rf::kFailure].is_string()) return kExitError;
    auto f = parse_failure(r[rf::kFailure].get<std::string>());
    return f ? exit_code(*f) : kExitError;
  }
  return kExitPassed;
}

}  // namespace nnx
