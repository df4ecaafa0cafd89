// `nnx-conformance validate | verify | execute`: records that can be trusted later (doc/record-format.md §6, §7).
// FILE is one record or a report (every record in it); validate and verify take several (`verify FILE...
// ROOT`: every record of every file against one artifact root, in one process). validate and verify exit 0 or 1 with the problems
// on stderr; execute exits like run (the class code of the first failing record).
#include <CLI/CLI.hpp>

#include <iostream>

#include "app/check_document.h"
#include "app/execute_record.h"
#include "app/execute_report.h"
#include "base/error.h"
#include "cli/flag_bounds.h"
#include "base/failure.h"
#include "cli/commands.h"
#include "base/record_vocabulary.h"
#include "record/report.h"
#include "runtime/runtime_cache.h"

namespace nnx::cli {

void add_record_commands(CLI::App& app, RecordArgs& args) {
  auto* validate = app.add_subcommand("validate", "refuse a record or report that breaks any rule");
  validate->add_option("FILE", args.files, "records or reports (one or more)")->required();
  auto* verify = app.add_subcommand("verify", "re-check every artifact byte for byte");
  // FILE... ROOT: one positional list whose last item is the root (CLI11 gives a list every argument).
  verify->add_option("FILE", args.files,
                     "records or reports (one or more), then ROOT: the artifact root (one folder per profile)")
      ->required();
  auto* execute = app.add_subcommand("execute", "verify, then load and run parity again (no Python needed unless --reference torch)");
  execute->add_option("FILE", args.file, "record or report")->required();
  execute->add_option("ROOT", args.root, "artifact root")->required();
  execute->add_option("--output", args.output, "write the re-executed record or report here");
  auto* library = execute->add_option("--onnxruntime", args.onnxruntime, "path of libonnxruntime.so.1 to use");
  execute
      ->add_option("--onnxruntime-version", args.onnxruntime_version,
                   "a release X.Y.Z from the runtime cache (`make runtimes ORT_VERSIONS=X.Y.Z` fetches it)")
      ->excludes(library);
  execute->add_option("--reference", args.reference,
                      "what parity compares with: native (the C++ forward, no Python; default) or torch (the "
                      "PyTorch network, in the exporter worker)")
      ->check(CLI::IsMember({rf::kReferenceNative, rf::kReferenceTorch}));
  execute
      ->add_option("--timeout", args.case_timeout_seconds,
                   "seconds one input case may run in the runtime before it is stopped and recorded as a "
                   "runtime-error (default 600)")
      ->check(timeout_seconds());
  add_render_options(*execute, args.render);
}

namespace {

// One file: its problems on stderr, "FILE: valid (N record(s))" on stdout. Every file is read and
// validated even after one fails, so one call names every problem of every file. A JsonError is a
// refusal like any other; its message names the file already.
bool validate_file(const std::string& file) {
  json document;
  std::vector<json> records;
  try {
    records = records_in(file, document);
  } catch (const Error& e) {
    std::cerr << "nnx-conformance: " << error_label(e.kind()) << ": " << e.what() << "\n";  // as cli_main
    return false;
  }
  const DocumentCheck check = check_records(records);
  for (const auto& r : check.records) {
    for (const auto& p : r.invalid) std::cerr << file << ": " << r.label << ": " << p << "\n";
  }
  if (records.empty()) std::cerr << file << ": holds no records\n";
  if (check.ok()) std::cout << file << ": valid (" << records.size() << " record(s))\n";
  return check.ok();
}

int validate_command(const RecordArgs& args) {
  bool ok = true;
  for (const auto& file : args.files) ok = validate_file(file) && ok;
  return ok ? kExitPassed : kExitError;
}

// One file's records against ROOT: each record validated, then its artifacts verified; problems on stderr,
// "<label>: every artifact verified" on stdout. With several files every line starts with "FILE: ".
// An unreadable or non-JSON file is named and the others are still checked.
bool verify_file(const std::string& file, const std::string& root, bool name_file) {
  const std::string prefix = name_file ? file + ": " : "";
  json document;
  std::vector<json> records;
  try {
    records = records_in(file, document);
  } catch (const Error& e) {
    if (!name_file) throw;  // one file: refused as before (cli_main names it)
    std::cerr << "nnx-conformance: " << error_label(e.kind()) << ": " << e.what() << "\n";
    return false;
  }
  if (records.empty() && name_file) std::cerr << file << ": holds no records\n";
  const std::filesystem::path root_path(root);
  const DocumentCheck check = check_records(records, &root_path);
  for (const auto& r : check.records) {
    const std::string who = prefix + r.label;
    for (const auto& p : r.invalid) std::cerr << who << ": invalid record: " << p << "\n";
    for (const auto& p : r.artifacts) std::cerr << who << ": " << p << "\n";
    if (r.unreadable) std::cerr << who << ": unreadable: " << *r.unreadable << "\n";
    if (r.verified && r.ok()) std::cout << who << ": every artifact verified\n";
  }
  return check.ok();
}

int verify_command(const RecordArgs& args) {
  if (args.files.size() < 2) throw UsageError("ROOT is required (see --help)");  // CLI11's words for a missing positional
  const std::string& root = args.files.back();
  const std::vector<std::string> files(args.files.begin(), args.files.end() - 1);
  bool ok = true;
  for (const auto& file : files) ok = verify_file(file, root, files.size() > 1) && ok;
  return ok ? kExitPassed : kExitError;
}

int execute_command(const RecordArgs& args, const Seams& seams) {
  json document;
  records_in(args.file, document);
  ExecuteRequest request{document, args.root, std::nullopt, {}, args.file};
  PathUse use{{}, {{"FILE", args.file}}, {{"the artifacts root", args.root}}};
  if (!args.output.empty()) {
    request.output = args.output;
    use.outputs.push_back({"--output", args.output});
  }
  if (!args.onnxruntime.empty()) request.options.onnxruntime_library = args.onnxruntime;
  if (!args.onnxruntime_version.empty()) {
    request.options.onnxruntime_library = cached_runtime_library(args.onnxruntime_version).string();
  }
  request.options.open_runtime = seams.open_runtime;
  request.options.reference = *parse_reference(args.reference);  // CLI checked the name
  request.options.case_timeout = timeout_of(args.case_timeout_seconds);
  if (request.options.onnxruntime_library) use.inputs.push_back({"--onnxruntime", *request.options.onnxruntime_library});
  check_outputs(use, args.render);
  const ExecuteOutcome outcome = execute_report(request);
  write_render_targets(is_report(document) ? make_report(outcome.records) : outcome.records.at(0), args.render);
  for (const auto& line : summary_lines(outcome.records)) std::cout << line << "\n";
  if (!args.output.empty()) std::cout << "output: " << args.output << "\n";
  std::cout << "exit code: " << outcome.exit_code << "\n";
  return outcome.exit_code;
}

}  // namespace

int record_command(CLI::App& app, const RecordArgs& args, const Seams& seams) {
  if (app.got_subcommand("validate")) return validate_command(args);
  if (app.got_subcommand("verify")) return verify_command(args);
  if (app.got_subcommand("execute")) return execute_command(args, seams);
  throw UsageError("unknown command");
}

}  // namespace nnx::cli
