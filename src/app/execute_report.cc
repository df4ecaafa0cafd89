#include "app/execute_report.h"

#include "app/execute_record.h"
#include "artifacts/output_paths.h"
#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "base/json_python.h"
#include "base/sha256.h"
#include "stages/kept_outputs.h"
#include "record/report.h"
#include "record/validate_record.h"

namespace nnx {

ExecuteOutcome execute_report(const ExecuteRequest& request) {
  const ScopedInterruptHandlers interrupts;
  if (request.output) {  // refused before executing anything
    PathUse use{{{"the output path", *request.output}}, {}, {{"the artifacts root", request.root}}};
    if (request.document_file) use.inputs.push_back({"the record or report", *request.document_file});
    check_output_paths(use);
    require_writable_file_path(*request.output, "the output path");
    if (request.keep_outputs) require_replaceable_kept_outputs(kept_outputs_folder(*request.output));
  } else if (request.keep_outputs) {
    throw UsageError("--keep-outputs keeps the outputs beside --output: name one");
  }
  const std::vector<nlohmann::json> records = records_of(request.document);
  ExecuteOptions options = request.options;
  if (request.document_file && !options.record_folder) {
    options.record_folder = std::filesystem::absolute(*request.document_file).parent_path();
  }
  std::vector<bool> kept;  // a report's record with nothing to execute, kept as it is
  for (const auto& record : records) {  // refused before any runs
    const std::optional<Record> to_execute = record_to_execute(request.document, record, request.root);
    kept.push_back(!to_execute);
    if (to_execute) require_executable_with(*to_execute, request.root, options);
  }
  KeptOutputs kept_outputs;
  if (request.keep_outputs) {
    options.keep_outputs = [&kept_outputs](KeptRecord record) { kept_outputs.records.push_back(std::move(record)); };
  }
  ExecuteOutcome outcome;
  for (std::size_t i = 0; i < records.size(); ++i) {
    outcome.records.push_back(kept[i] ? records[i] : execute_record(records[i], request.root, options));
    throw_if_interrupted();
  }
  if (request.output) {
    if (is_report(request.document)) {
      save_report(make_report(outcome.records), *request.output);
    } else {
      validate_record(outcome.records.front());
      write_file_atomically(*request.output, dumps_pretty(outcome.records.front()) + "\n");
    }
    if (request.keep_outputs) {
      kept_outputs.document_sha256 = sha256_file(*request.output);
      write_kept_outputs(kept_outputs_folder(*request.output), kept_outputs);
    }
  }
  outcome.exit_code = exit_code_for(outcome.records);
  return outcome;
}

}  // namespace nnx
