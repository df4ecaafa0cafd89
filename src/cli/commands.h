// The command line's verbs (doc/cli.md, "Command line"). Each returns the process exit code; refusals
// propagate as nnx::Error, which cli_main maps to an exit code once (base/error.h) and prints as one line
// with the command line's own hint (a flag name) where the kind has one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifacts/output_paths.h"
#include "base/record_vocabulary.h"
#include "runtime/run_watchdog.h"
#include "runtime/runtime.h"

namespace CLI {
class App;
}

namespace nnx::cli {

// What tests may replace (tests/tools/): the runtime seam. The real command line uses the defaults.
struct Seams {
  RuntimeOpener open_runtime = &nnx::open_runtime;
};

// --html/--markdown/--junit of run, execute and report (report/renderings.h); "" = not asked for.
struct RenderArgs {
  std::string html;
  std::string markdown;
  std::string junit;
};

struct RunArgs {
  std::string output;
  std::string artifacts;
  std::vector<std::string> profiles;
  std::optional<std::string> source_revision;
  bool force = false;
  std::string onnxruntime;
  RenderArgs render;
  std::string profile_file;  // a JSON list of profiles (profile/profile_file.h)
  std::string timings;       // where to write the run's phase breakdown (cli/run_progress.h)
  bool quiet = false;        // no live progress on stderr
  std::optional<int> jobs;   // profiles exported at once (default: auto, app/run_profiles.h auto_workers)
  std::optional<int> memory_limit_mib;  // what the input cases may cost (default: profile/memory_budget.h)
};

struct RecordArgs {
  std::string file;
  std::vector<std::string> files;     // validate, verify: every record or report named, in one process
  std::string root;
  std::string output;
  std::string onnxruntime;
  std::string onnxruntime_version;    // execute: a release of the runtime cache (runtime/runtime_cache.h)
  std::string reference;  // execute: "" (each record's default), native, stored or torch
  double case_timeout_seconds = static_cast<double>(kDefaultRunTimeout.count());  // execute --timeout: one input case's run (runtime/run_watchdog.h)
  RenderArgs render;                  // execute
};

// `nnx-conformance report FILE [--html OUT] [--markdown OUT] [--junit OUT]` (cli/report_command.cc).
struct ReportArgs {
  std::string file;
  RenderArgs render;
};
void add_render_options(CLI::App& command, RenderArgs& args);
void add_report_command(CLI::App& app, ReportArgs& args);
int report_command(const ReportArgs& args);
// check_outputs, before the verb does anything: `use` (the verb's own outputs, inputs and roots) with the
// renderings asked for added as outputs, against the output-path rule (artifacts/output_paths.h), then each
// rendering's folder writable. write_render_targets writes the renderings asked for of `document` and returns
// their file lines ("html: OUT", "markdown: OUT", "junit: OUT"), which the verb prints after its result lines.
void check_outputs(PathUse use, const RenderArgs& args);
[[nodiscard]] std::vector<std::string> write_render_targets(const nlohmann::json& document, const RenderArgs& args);

// `matrix`, `matrix-merge` and the hidden `matrix-cell` (cli/matrix_command.cc, doc/runtime-matrix.md).
struct MatrixArgs {
  std::string report;
  std::string root;
  std::string output;
  std::vector<std::string> libraries;  // --onnxruntime PATH...
  std::vector<std::string> versions;   // --onnxruntime-version X.Y.Z...
  std::size_t jobs = 0;                // 0: the number of cores
  std::string shard;                   // K/N
  double timeout_seconds = 600.0;
  std::vector<std::string> parts;      // matrix-merge
  std::string cell_library;            // matrix-cell
  std::string cell_dir;
  std::size_t first = 0;
  RenderArgs render;
};
void add_matrix_commands(CLI::App& app, MatrixArgs& args);
int matrix_command(CLI::App& app, const MatrixArgs& args);

void add_run_command(CLI::App& app, RunArgs& args);
int run_command(const RunArgs& args, const Seams& seams);

void add_record_commands(CLI::App& app, RecordArgs& args);
int record_command(CLI::App& app, const RecordArgs& args, const Seams& seams);

// Parses, runs the verb and maps every error to its exit code and one line on stderr.
int cli_main(int argc, char** argv, const Seams& seams = {});

}  // namespace nnx::cli
