// The C++ front end (include/nnx/conformance.h): small functions over src/app/ (validate and verify are
// app/check_document.h's sequence, as the command line's record verbs), every core error turned into a
// Refusal with its exit code.
#include <nnx/conformance.h>

#include "app/check_document.h"
#include "app/execute_record.h"
#include "app/execute_report.h"
#include "app/worker_pool.h"
#include "base/build_info.h"
#include "base/error.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "record/report.h"

namespace nnx::conformance {
namespace {

template <typename Body>
auto refusing(Body body) {
  try {
    return body();
  } catch (const nnx::Error& e) {
    throw Refusal(e.what(), exit_code_of(e));
  }
}

// The app's sequence (app/check_document.h); an artifact that cannot be read is a refusal here, as before.
Verdict check(const std::filesystem::path& file, const std::filesystem::path* root) {
  json document;
  const std::vector<json> records = records_in(file, document);
  const DocumentCheck check = check_records(records, root);
  Verdict verdict;
  verdict.records = records.size();
  if (records.empty()) verdict.problems.push_back(file.string() + ": holds no records");
  for (const auto& r : check.records) {
    if (r.unreadable) throw ArtifactIoError(*r.unreadable);
    for (const auto& p : r.invalid) verdict.problems.push_back(r.label + ": " + p);
    for (const auto& p : r.artifacts) verdict.problems.push_back(r.label + ": " + p);
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
    ExecuteRequest request{read_strict_json_file(file.string()), root, settings.output, {}, file};
    request.options.onnxruntime_library = settings.onnxruntime_library;
    request.options.reference = reference_named(settings.reference);
    if (request.options.reference == ReferenceKind::torch) {
      request.options.worker = resolve_worker_command(
          WorkerCommand{settings.worker_python.value_or(""), settings.worker_script.value_or(""), {}});
    }
    const ExecuteOutcome outcome = execute_report(request);
    Execution execution;
    execution.exit_code = outcome.exit_code;
    execution.summary = summary_lines(outcome.records);
    execution.document = dumps_pretty(is_report(request.document) ? make_report(outcome.records)
                                                                  : outcome.records.at(0));
    return execution;
  });
}

void close_workers() { close_warm_workers(); }

}  // namespace nnx::conformance
