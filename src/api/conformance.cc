// The C++ front end (include/nnx/conformance.h): small functions over src/app/ like the command line's
// record verbs (cli/record_commands.cc), every core error turned into a Refusal with its exit code.
#include <nnx/conformance.h>

#include "app/execute_record.h"
#include "app/execute_report.h"
#include "artifacts/artifacts.h"
#include "base/build_info.h"
#include "base/error.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "record/report.h"
#include "record/validate_record.h"

namespace nnx::conformance {
namespace {

std::string label(const json& record, std::size_t index) {
  if (record.is_object() && record.contains(rf::kProfile) && record[rf::kProfile].is_string()) {
    return record[rf::kProfile].get<std::string>();
  }
  return "record " + std::to_string(index);
}

template <typename Body>
auto refusing(Body body) {
  try {
    return body();
  } catch (const nnx::Error& e) {
    throw Refusal(e.what(), exit_code_of(e));
  }
}

Verdict check(const std::filesystem::path& file, const std::filesystem::path* root) {
  const json document = read_strict_json_file(file.string());
  const std::vector<json> records = records_of(document);
  Verdict verdict;
  verdict.records = records.size();
  if (records.empty()) verdict.problems.push_back(file.string() + ": holds no records");
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto problems = record_problems(records[i]);
    for (const auto& p : problems) verdict.problems.push_back(label(records[i], i) + ": " + p);
    if (!problems.empty() || root == nullptr) continue;
    for (const auto& p : verify_artifacts(records[i], *root).problems) {
      verdict.problems.push_back(label(records[i], i) + ": " + p);
    }
  }
  verdict.ok = verdict.problems.empty();
  return verdict;
}

}  // namespace

std::string version() { return build_version(); }

Verdict validate(const std::filesystem::path& file) {
  return refusing([&] { return check(file, nullptr); });
}

Verdict verify(const std::filesystem::path& file, const std::filesystem::path& root) {
  return refusing([&] { return check(file, &root); });
}

Execution execute(const std::filesystem::path& file, const std::filesystem::path& root,
                  const ExecuteSettings& settings) {
  return refusing([&] {
    ExecuteRequest request{read_strict_json_file(file.string()), root, settings.output, {}};
    request.options.onnxruntime_library = settings.onnxruntime_library;
    const ExecuteOutcome outcome = execute_report(request);
    Execution execution;
    execution.exit_code = outcome.exit_code;
    execution.summary = summary_lines(outcome.records);
    execution.document = dumps_pretty(is_report(request.document) ? make_report(outcome.records)
                                                                  : outcome.records.at(0));
    return execution;
  });
}

}  // namespace nnx::conformance
