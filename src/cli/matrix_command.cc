// `nnx-conformance matrix REPORT ROOT --output OUT (--onnxruntime PATH | --onnxruntime-version X.Y.Z)...
// [--jobs N] [--shard K/N] [--timeout SECONDS] [--html/--markdown/--junit OUT]`, `matrix-merge OUT PART...`
// and the hidden `matrix-cell` one cell's child runs (doc/runtime-matrix.md; src/matrix/). Cells are the
// --onnxruntime paths in the order given, then the --onnxruntime-version releases in the order given.
// Prints one line per runtime × profile and the drift; exits like execute.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>

#include "base/error.h"
#include "base/loaded_file.h"
#include "base/terminal_text.h"
#include "base/failure.h"
#include "base/json_strict.h"
#include "cli/commands.h"
#include "cli/flag_bounds.h"
#include "matrix/cell_child.h"
#include "matrix/parting.h"
#include "matrix/run_matrix.h"

namespace nnx::cli {

void add_matrix_commands(CLI::App& app, MatrixArgs& args) {
  auto* matrix = app.add_subcommand("matrix", "execute every record of a report under each ONNX Runtime named, one "
                                              "child process per runtime, and write the runtime matrix with drift");
  matrix->add_option("REPORT", args.report, "report or record")->required();
  matrix->add_option("ROOT", args.root, "artifact root")->required();
  matrix->add_option("--output", args.output, "where the matrix (nnx.runtime-matrix/1) is written")->required();
  matrix->add_option("--onnxruntime", args.libraries, "a libonnxruntime library to run (repeatable)");
  matrix->add_option("--onnxruntime-version", args.versions,
                     "a release X.Y.Z of the runtime cache (repeatable; `make runtimes ORT_VERSIONS=...` fetches)");
  matrix->add_option("--jobs", args.jobs, "runtimes run at once (default: the number of cores)")
      ->check(whole_number_from(1, 256));
  matrix->add_option("--shard", args.shard, "run only cells K, K+N, ... of the runtimes named (K/N, 0 <= K < N; ci: from the CI's parallel job "
                     "variables, doc/runtime-matrix.md)");
  matrix->add_option("--balance", args.balance,
                     "with --shard: deal the cells out by the seconds this earlier matrix recorded for each release, "
                     "longest first, so the shards take about as long (doc/runtime-matrix.md)");
  matrix->add_option("--timeout", args.timeout_seconds, "seconds one runtime's process may take (default 600)")
      ->check(timeout_seconds());
  matrix->add_option("--optimization-level", args.levels,
                     "an axis: run every release at this graph optimisation level too (repeatable; default: "
                     "ORT_ENABLE_ALL only; module and successor-format records)");
  matrix->add_option("--intra-op-threads", args.threads,
                     "an axis: run every release with this many intra-op threads (repeatable; default 1; more than one "
                     "runs each case twice and says whether the runs agree)");
  matrix->add_option("--provider", args.providers,
                     "an axis: run every release on this execution provider (repeatable; default CPUExecutionProvider; "
                     "one a release lacks is that cell's load-error naming it)");
  matrix->add_option("--session-config", args.config, "a session config entry KEY=VALUE for every cell (repeatable)");
  matrix->add_option("--provider-option", args.provider_options,
                     "an option KEY=VALUE given to every cell's provider when its session appends it (repeatable; e.g. "
                     "precision=FP32 for OpenVINOExecutionProvider; CPUExecutionProvider takes none)");
  add_render_options(*matrix, args.render);
  add_sign_key_option(*matrix, args.sign_key);

  auto* merge = app.add_subcommand("matrix-merge", "join runtime matrices made with --shard into one");
  merge->add_option("OUT", args.output, "the merged matrix")->required();
  merge->add_option("PART", args.parts, "matrix parts (one or more)")->required();
  add_render_options(*merge, args.render);
  add_sign_key_option(*merge, args.sign_key);

  auto* cell = app.add_subcommand("matrix-cell", "");  // internal: one cell's child process (matrix/cell_child.h)
  cell->group("");
  cell->add_option("REPORT", args.report)->required();
  cell->add_option("ROOT", args.root)->required();
  cell->add_option("--onnxruntime", args.cell_library)->required();
  cell->add_option("--cell-dir", args.cell_dir)->required();
  cell->add_option("--first", args.first);
  cell->add_option("--parting", args.parting)->check(CLI::IsMember({"dump", "compare"}));
  cell->add_option("--parting-case", args.parting_case);
  cell->add_option("--parting-values", args.parting_values);
  cell->add_option("--parting-label", args.parting_label);
  cell->add_option(matrix::cell_protocol::kSettingsFlag, args.cell_settings);
}

namespace {

int print_outcome(const char* verb, const matrix::MatrixOutcome& outcome, const MatrixArgs& args,
                  const DocumentSigner& signer) {
  for (const auto& note : outcome.notes) std::cerr << verb << ": " << visible_controls(note) << "\n";
  signer.sign();
  const std::vector<std::string> file_lines = write_render_targets(outcome.document, args.render);
  for (const auto& line : matrix::matrix_summary_lines(outcome.document)) std::cout << line << "\n";
  std::cout << "output: " << args.output << "\n";
  signer.print();
  for (const auto& line : file_lines) std::cout << line << "\n";
  std::cout << "exit code: " << outcome.exit_code << "\n";
  return outcome.exit_code;
}

int matrix_command(const MatrixArgs& args) {
  matrix::MatrixRequest request;
  request.report = args.report;
  request.root = args.root;
  request.output = args.output;
  for (const auto& library : args.libraries) request.runtimes.push_back(matrix::RuntimeChoice::library_file(library));
  for (const auto& version : args.versions) request.runtimes.push_back(matrix::RuntimeChoice::cached_release(version));
  request.jobs = args.jobs;
  if (args.shard == "ci") {
    const matrix::CiShard ci = matrix::shard_from_ci([](const char* name) { return std::getenv(name); });
    std::cerr << "matrix: shard " << matrix::shard_text(ci.shard) << " from " << ci.from << "\n";
    request.shard = ci.shard;
  } else if (!args.shard.empty()) {
    request.shard = matrix::parse_shard(args.shard);
  }
  if (!args.balance.empty()) request.balance = args.balance;
  const SessionOverride every_cell = session_override(SessionArgs{"", 0, args.config, "", args.provider_options});
  request.settings = matrix::settings_product(args.levels, args.threads, args.providers, every_cell.config,
                                              every_cell.provider_options);
  request.timeout = timeout_of(args.timeout_seconds);
  const std::filesystem::path self = executable_file();  // each cell runs in a child of this same command
  if (self.empty()) {
    throw UsageError("matrix: this command's own file cannot be read from /proc/self/exe, which runs each cell");
  }
  request.child_command = {self.string(), "matrix-cell"};
  request.on_cell = [](const matrix::MatrixCell& cell) {
    std::cerr << "onnxruntime " << cell.name() << ": done\n";
  };
  PathUse use{{{"--output", args.output}}, {{"REPORT", args.report}}, {{"the artifacts root", args.root}}};
  for (const auto& runtime : request.runtimes) {
    use.inputs.push_back({runtime.version ? "--onnxruntime-version" : "--onnxruntime", runtime.library});
  }
  if (request.balance) use.inputs.push_back({"--balance", *request.balance});
  const DocumentSigner signer(args.sign_key, args.output, use);
  check_outputs(use, args.render);
  return print_outcome("matrix", matrix::run_matrix(request), args, signer);
}

int merge_command(const MatrixArgs& args) {
  std::vector<std::pair<std::string, nlohmann::json>> parts;
  PathUse use{{{"OUT", args.output}}, {}, {}};
  for (const auto& part : args.parts) use.inputs.push_back({"PART", part});
  const DocumentSigner signer(args.sign_key, args.output, use);
  check_outputs(use, args.render);
  for (const auto& part : args.parts) parts.emplace_back(part, read_strict_json_file(part));
  return print_outcome("matrix-merge", matrix::merge_matrices(parts, args.output), args, signer);
}

}  // namespace

int matrix_command(CLI::App& app, const MatrixArgs& args) {
  if (app.got_subcommand("matrix")) return matrix_command(args);
  if (app.got_subcommand("matrix-merge")) return merge_command(args);
  if (!args.parting.empty()) {
    return matrix::run_parting_child({args.report, args.root, args.cell_library, args.first, args.parting,
                                      args.parting_values, args.cell_dir, args.parting_case, args.parting_label,
                                      matrix::settings_from_argument(args.cell_settings)});
  }
  return matrix::run_cell_child({args.report, args.root, args.cell_library, args.cell_dir, args.first, 1,
                                 matrix::settings_from_argument(args.cell_settings)});
}

}  // namespace nnx::cli
