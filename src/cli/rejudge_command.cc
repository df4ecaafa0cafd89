// `nnx-conformance rejudge DOCUMENT [--rtol X] [--atol Y] --output OUT` (doc/rejudge.md): the verdicts of a
// report, a record or a runtime matrix re-judged from the outputs kept beside it (`execute --keep-outputs`,
// `matrix --keep-outputs`; stages/kept_outputs.h) under other tolerances, with nothing run again
// (app/rejudge.h). Prints one line per verdict that changes and a count, writes the nnx.rejudged/1 document
// atomically (never the document re-judged) and exits as `execute` would for the re-judged records; a document
// whose records do not validate, kept outputs that are missing, changed or another document's are refused.
#include <CLI/CLI.hpp>

#include <iostream>

#include "app/execute_record.h"
#include "app/rejudge.h"
#include "artifacts/output_paths.h"
#include "base/atomic_file.h"
#include "base/document_kind.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/sha256.h"
#include "cli/commands.h"
#include "matrix/matrix_document.h"

namespace nnx::cli {

void add_rejudge_command(CLI::App& app, RejudgeArgs& args) {
  auto* rejudge = app.add_subcommand(
      "rejudge", "re-judge a report's or matrix's verdicts from its kept outputs under other tolerances (nothing runs)");
  rejudge->add_option("DOCUMENT", args.document, "a report, record or runtime matrix whose outputs were kept")->required();
  rejudge->add_option("--rtol", args.rtol, "relative tolerance (default: each record's own)")
      ->check(CLI::NonNegativeNumber);
  rejudge->add_option("--atol", args.atol, "absolute tolerance (default: each record's own)")
      ->check(CLI::NonNegativeNumber);
  rejudge->add_option("--output", args.output, "write the re-judged document (nnx.rejudged/1) here")->required();
}

namespace {

// The records re-judged, in order: a matrix's every runtime's (read strictly), else the record or report's.
std::vector<json> records_of_document(const std::string& file, const json& document) {
  if (document_kind_of(document) == DocumentKind::matrix) {
    std::vector<json> records;
    for (auto& cell : matrix::matrix_from_json(document).cells) {
      for (auto& record : cell.records) records.push_back(std::move(record));
    }
    return records;
  }
  try {
    return records_of(document);
  } catch (const Error& e) {
    throw ConformanceError(file + ": " + e.what());
  }
}

}  // namespace

int rejudge_command(const RejudgeArgs& args) {
  PathUse use{{{"--output", args.output}}, {{"DOCUMENT", args.document}}, {}};
  check_output_paths(use);
  require_writable_file_path(args.output, "--output");
  const std::string bytes = read_file_bytes(args.document, kMaxJsonTextBytes, "the JSON text limit", ErrorKind::usage);
  const json document = parse_strict_json(bytes);
  const std::string sha256 = sha256_hex(bytes);
  RejudgeRequest request;
  request.records = records_of_document(args.document, document);
  request.kept = read_kept_outputs(kept_outputs_folder(args.document), sha256);
  if (args.rtol) request.rtol = *args.rtol;
  if (args.atol) request.atol = *args.atol;
  request.document = json{{"path", args.document}, {"sha256", sha256}};
  const RejudgeOutcome outcome = rejudge(request);
  write_file_atomically(args.output, dumps_pretty(outcome.document) + "\n");
  for (const auto& line : outcome.changes) std::cout << "rejudge: " << line << "\n";
  std::cout << "rejudge: " << outcome.changes.size() << " verdict(s) change\n";
  std::cout << "output: " << args.output << "\n";
  std::cout << "exit code: " << outcome.exit_code << "\n";
  return outcome.exit_code;
}

}  // namespace nnx::cli
