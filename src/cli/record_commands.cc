// `nnx-conformance validate | verify | execute`: records that can be trusted later (doc/record-format.md §6, §7).
// FILE is one record or a report (every record in it); validate and verify take several (`verify FILE...
// ROOT`: every record of every file against one artifact root, in one process). validate exits 0 or 1 and
// says which document each file is (a runtime matrix is validated as one); verify exits 0, 1 for an invalid
// record, 14 (hash-mismatch) for artifacts that do not verify, 2 for a root or profile folder that does not
// exist; execute exits like run (the class code of the first failing record): one verdict per problem
// (doc/record-format.md §7).
#include <CLI/CLI.hpp>

#include <iostream>

#include "app/check_document.h"
#include "base/document_kind.h"
#include "app/execute_record.h"
#include "app/execute_report.h"
#include "artifacts/artifacts.h"
#include "base/error.h"
#include "cli/flag_bounds.h"
#include "base/failure.h"
#include "cli/commands.h"
#include "matrix/document_check.h"
#include "base/record_vocabulary.h"
#include "record/report.h"
#include "runtime/runtime_cache.h"

namespace nnx::cli {

void add_record_commands(CLI::App& app, RecordArgs& args) {
  auto* validate = app.add_subcommand("validate", "refuse a record or report that breaks any rule");
  validate->add_option("FILE", args.files, "records or reports (one or more)")->required();
  const char* key_help = "an Ed25519 public key (KEY.pub): each FILE must be signed by it (FILE.sig beside it, "
                         "written by --sign-key), over its exact bytes, or it is refused (exit 1)";
  validate->add_option("--key", args.key, key_help);
  auto* verify = app.add_subcommand("verify", "re-check every artifact byte for byte");
  // FILE... ROOT: one positional list whose last item is the root (CLI11 gives a list every argument).
  verify->add_option("FILE", args.files,
                     "records or reports (one or more), then ROOT: the artifact root (one folder per profile)")
      ->required();
  verify->add_option("--key", args.key, key_help);
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
                      "what parity compares with: native (a feed-forward record's C++ forward), stored (a module "
                      "record's stored outputs) or torch (PyTorch in the exporter worker: a module record's "
                      "factory is imported, its file checked against the record's source_sha256 first). Default: "
                      "each record's own, native or stored, with no Python and none of the record's code")
      ->check(CLI::IsMember({rf::kReferenceNative, rf::kReferenceStored, rf::kReferenceTorch}));
  execute
      ->add_option("--timeout", args.case_timeout_seconds,
                   "seconds one input case may run in the runtime before it is stopped and recorded as a "
                   "runtime-error (default 600)")
      ->check(timeout_seconds());
  add_session_options(*execute, args.session, true);
  execute->add_flag("--keep-outputs", args.keep_outputs,
                    "keep every compared case's outputs and reference values beside --output, in <output "
                    "stem>-outputs/ (hash-listed ONNX tensor files), for `rejudge`");
  add_localise_options(*execute, args.localise, /*run=*/false);
  add_render_options(*execute, args.render);
  add_sign_key_option(*execute, args.sign_key);
}

namespace {

// One file: which document it is and its problems on stderr, "FILE: valid (N record(s)), <kind>" on stdout.
// Every file is read and validated even after one fails, so one call names every problem of every file. A
// file that cannot be read or is no document of ours is a refusal like any other; its message names the
// file already. The file's exit code (matrix/document_check.h): 0, or 1.
int validate_file(const std::string& file, const std::optional<SshPublicKey>& key) {
  if (const std::string problem = check_signature_of(file, key); !problem.empty()) {
    std::cerr << file << ": " << problem << "\n" << file << ": refused\n";
    return kExitError;
  }
  matrix::FileCheck check;
  try {
    check = matrix::check_document_file(file);
  } catch (const Error& e) {
    std::cerr << "nnx-conformance: " << error_label(e.kind()) << ": " << e.what() << "\n";  // as cli_main
    return exit_code_of(e);
  }
  const std::string kind = check.kind_text;
  for (const auto& p : check.matrix_problems) std::cerr << file << ": " << p << "\n";
  for (const auto& r : check.check.records) {
    for (const auto& p : r.invalid) std::cerr << file << ": " << r.label << ": " << p << "\n";
  }
  if (check.records == 0 && check.kind != DocumentKind::matrix) std::cerr << file << ": holds no records\n";
  if (check.ok()) {
    std::cout << file << ": valid (" << check.records << " record(s)), " << kind << "\n";
  } else {
    std::cerr << file << ": " << kind << ", refused\n";
  }
  return check.exit_code();
}

// The first failing file's code, as a run's is its first failing profile's.
int first_failing(int so_far, int code) { return so_far != kExitPassed ? so_far : code; }

int validate_command(const RecordArgs& args) {
  int code = kExitPassed;
  const std::optional<SshPublicKey> key = public_key_of(args.key);
  for (const auto& file : args.files) code = first_failing(code, validate_file(file, key));
  return code;
}

// One file's records against ROOT: each record validated, then its artifacts verified; problems on stderr,
// "<label>: every artifact verified" on stdout. With several files every line starts with "FILE: ".
// An unreadable or non-JSON file is named and the others are still checked. The file's exit code: 0, 1 for
// an invalid record, 14 (hash-mismatch) for artifacts that do not verify (app/check_document.h); a root or
// profile folder that does not exist is a usage error, thrown (exit 2).
int verify_file(const std::string& file, const std::string& root, bool name_file,
                const std::optional<SshPublicKey>& key) {
  const std::string prefix = name_file ? file + ": " : "";
  if (const std::string problem = check_signature_of(file, key); !problem.empty()) {
    std::cerr << file << ": " << problem << "\n" << file << ": refused\n";
    return kExitError;
  }
  const std::filesystem::path root_path(root);
  matrix::FileCheck check;
  try {
    check = matrix::check_document_file(file, &root_path);
  } catch (const Error& e) {
    if (!name_file || e.kind() == ErrorKind::usage) throw;  // one file, or a mistyped root: refused (cli_main)
    std::cerr << "nnx-conformance: " << error_label(e.kind()) << ": " << e.what() << "\n";
    return exit_code_of(e);
  }
  if (check.records == 0 && name_file) std::cerr << file << ": holds no records\n";
  for (const auto& r : check.check.records) {
    const std::string who = prefix + r.label;
    for (const auto& p : r.invalid) std::cerr << who << ": invalid record: " << p << "\n";
    for (const auto& p : r.artifacts) std::cerr << who << ": " << p << "\n";
    if (r.unreadable) std::cerr << who << ": unreadable: " << *r.unreadable << "\n";
    if (r.verified && r.ok()) std::cout << who << ": every artifact verified\n";
  }
  return check.exit_code();
}

int verify_command(const RecordArgs& args) {
  if (args.files.size() < 2) throw UsageError("ROOT is required (see --help)");  // CLI11's words for a missing positional
  const std::string& root = args.files.back();
  const std::vector<std::string> files(args.files.begin(), args.files.end() - 1);
  const std::optional<SshPublicKey> key = public_key_of(args.key);
  int code = kExitPassed;
  for (const auto& file : files) code = first_failing(code, verify_file(file, root, files.size() > 1, key));
  if (code == exit_code(kUnverifiedArtifacts)) {  // the class, once: the exit code alone does not say it
    std::cerr << "nnx-conformance: verify: " << failure_name(kUnverifiedArtifacts) << " (exit code " << code
              << "): the artifacts do not match their record, as execute's load stage records it\n";
  }
  return code;
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
  if (!args.sign_key.empty() && args.output.empty()) throw UsageError("--sign-key signs --output: name one");
  const DocumentSigner signer(args.sign_key, args.output, use);
  if (!args.onnxruntime.empty()) request.options.onnxruntime_library = args.onnxruntime;
  if (!args.onnxruntime_version.empty()) {
    request.options.onnxruntime_library = cached_runtime_library(args.onnxruntime_version).string();
  }
  request.options.open_runtime = seams.open_runtime;
  if (!args.reference.empty()) request.options.reference = *parse_reference(args.reference);  // CLI checked it
  request.options.case_timeout = timeout_of(args.case_timeout_seconds);
  request.options.localize = localise_when(args.localise, LocaliseWhen::never);
  request.options.localise_limits = localise_limits(args.localise);
  if (!args.output.empty() && request.options.localize != LocaliseWhen::never) {
    const std::filesystem::path output = args.output;
    request.options.repro_root = output.parent_path() / (output.stem().string() + "-repro");
    use.outputs.push_back({"the repros' folder", *request.options.repro_root});
  }
  request.options.session = session_override(args.session);
  if (args.keep_outputs) {
    if (args.output.empty()) throw UsageError("--keep-outputs keeps the outputs beside --output: name one");
    request.keep_outputs = true;  // its folder beside --output: execute_report checks it may be replaced
  }
  if (request.options.onnxruntime_library) use.inputs.push_back({"--onnxruntime", *request.options.onnxruntime_library});
  check_outputs(use, args.render);
  const ExecuteOutcome outcome = execute_report(request);
  signer.sign();
  const std::vector<std::string> file_lines =
      write_render_targets(is_report(document) ? make_report(outcome.records) : outcome.records.at(0), args.render);
  for (const auto& line : summary_lines(outcome.records)) std::cout << line << "\n";
  if (!args.output.empty()) std::cout << "output: " << args.output << "\n";
  signer.print();
  for (const auto& line : file_lines) std::cout << line << "\n";
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
