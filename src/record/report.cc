#include "record/report.h"

#include <stdexcept>

#include "base/atomic_file.h"
#include "base/failure.h"
#include "base/json_python.h"
#include "record/validate_record.h"

namespace nnx {

json make_report(const std::vector<json>& records) {
  bool passed = !records.empty();
  for (const auto& r : records) passed = passed && r.value("status", "") == "passed";
  return json{{"format", kFormat}, {"status", passed ? "passed" : "failed"}, {"profiles", records}};
}

void save_report(const json& report, const std::filesystem::path& path) {
  if (!report.is_object() || !report.contains("profiles") || !report["profiles"].is_array()) {
    throw ConformanceError("a report needs a list of profiles");
  }
  std::string problems;
  for (std::size_t i = 0; i < report["profiles"].size(); ++i) {
    for (const auto& p : record_problems(report["profiles"][i])) {
      problems += "\n  profiles[" + std::to_string(i) + "]: " + p;
    }
  }
  if (!problems.empty()) throw ConformanceError("refusing to write an invalid report:" + problems);
  write_file_atomically(path, dumps_pretty(report) + "\n");
}

std::vector<std::string> summary_lines(const std::vector<json>& records) {
  std::vector<std::string> lines;
  for (const auto& r : records) {
    std::string line = r.value("profile", "?") + ": " + r.value("status", "?");
    if (r.contains("failure") && r["failure"].is_string()) line += " (" + r["failure"].get<std::string>() + ")";
    line += "; level=" + r.value("level", "?");
    if (r.contains("exporter") && r["exporter"].is_object()) {
      line += "; exporter=" + r["exporter"].value("name", "?");
    }
    if (r.contains("runtime") && r["runtime"].is_object() && r["runtime"].contains("version") &&
        r["runtime"]["version"].is_string()) {
      line += "; onnxruntime=" + r["runtime"]["version"].get<std::string>();
    }
    double worst = -1;
    std::size_t passed = 0, total = 0;
    if (r.contains("input_cases") && r["input_cases"].is_array()) {
      for (const auto& c : r["input_cases"]) {
        ++total;
        if (c.value("passed", false)) ++passed;
        if (c.contains("max_abs_error") && c["max_abs_error"].is_number()) {
          worst = std::max(worst, c["max_abs_error"].get<double>());
        }
      }
    }
    if (worst >= 0) line += "; max_abs_error=" + python_float_repr(worst);
    line += "; " + std::to_string(passed) + "/" + std::to_string(total) + " input cases passed";
    lines.push_back(line);
  }
  return lines;
}

int exit_code_for(const std::vector<json>& records) {
  if (records.empty()) return kExitError;
  for (const auto& r : records) {
    if (r.value("status", "") == "passed") continue;
    if (!r.contains("failure") || !r["failure"].is_string()) return kExitError;
    auto f = parse_failure(r["failure"].get<std::string>());
    return f ? exit_code(*f) : kExitError;
  }
  return kExitPassed;
}

}  // namespace nnx
