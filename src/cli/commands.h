// The command line's verbs (doc/cli.md, "Command line"). Each returns the process exit code; refusals
// propagate as nnx::Error, which cli_main maps to an exit code once (base/error.h) and prints as one line
// with the command line's own hint (a flag name) where the kind has one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run_options.h"
#include "artifacts/output_paths.h"
#include "base/record_vocabulary.h"
#include "base/ssh_key.h"
#include "runtime/run_watchdog.h"
#include "runtime/runtime.h"
#include "stages/localisation.h"

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

// --localize, --no-localize, --localize-memory MIB and --localize-seconds S of run and execute
// (cli/localise_options.cc; stages/localisation.h).
struct LocaliseArgs {
  bool always = false;
  bool never = false;
  std::optional<int> memory_mib;
  std::optional<int> seconds;
};
void add_localise_options(CLI::App& command, LocaliseArgs& args, bool run);
LocaliseWhen localise_when(const LocaliseArgs& args, LocaliseWhen by_default);
LocaliseLimits localise_limits(const LocaliseArgs& args);

// --optimization-level, --intra-op-threads, --session-config of run, check and execute, and --provider of
// execute (a profile names its own provider) and a matrix's cell (cli/session_options.cc).
struct SessionArgs {
  std::string optimization_level;
  std::int64_t intra_op_threads = 0;  // 0: the record's own
  std::vector<std::string> config;    // KEY=VALUE...
  std::string provider;               // "": the record's own
  std::vector<std::string> provider_options;  // KEY=VALUE...
};
void add_session_options(CLI::App& command, SessionArgs& args, bool with_provider);
SessionOverride session_override(const SessionArgs& args);  // UsageError for an entry that is not KEY=VALUE

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
  std::string sign_key;      // --sign-key KEY: sign the report (cli/sign_command.cc)
  LocaliseArgs localise;
  SessionArgs session;
  std::optional<nlohmann::json> profile_object;  // check: the one profile its --KEY VALUE flags name
  std::vector<std::string> command_flags;        // check: its own flags ("--output"), suggested for a near miss
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
  std::string sign_key;               // execute --sign-key KEY: sign --output (cli/sign_command.cc)
  std::string key;                    // validate, verify --key PUB: each file's signature checked first
  LocaliseArgs localise;              // execute
  bool keep_outputs = false;          // execute --keep-outputs: beside --output (stages/kept_outputs.h)
  SessionArgs session;                // execute
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
  std::string balance;                 // --balance EARLIER.json (matrix/shard_balance.h)
  double timeout_seconds = 600.0;
  std::vector<std::string> parts;      // matrix-merge
  std::string cell_library;            // matrix-cell
  std::string cell_dir;
  std::size_t first = 0;
  std::string parting;                 // matrix-cell --parting dump|compare (matrix/parting.h)
  std::string parting_case;
  std::string parting_values;
  std::string parting_label;
  std::string cell_settings;           // matrix-cell --settings JSON: the cell's (matrix/cell_settings.h)
  // matrix's axes (matrix/cell_settings.h): each repeatable, the cells their product
  std::vector<std::string> levels;     // --optimization-level L...
  std::vector<std::int64_t> threads;   // --intra-op-threads N...
  std::vector<std::string> providers;  // --provider P...
  std::vector<std::string> config;     // --session-config KEY=VALUE..., every cell's
  std::vector<std::string> provider_options;  // --provider-option KEY=VALUE..., every cell's provider's
  RenderArgs render;
  std::string sign_key;                // matrix, matrix-merge --sign-key KEY (cli/sign_command.cc)
};
void add_matrix_commands(CLI::App& app, MatrixArgs& args);
int matrix_command(CLI::App& app, const MatrixArgs& args);

// Signed documents (cli/sign_command.cc; base/document_signature.h, doc/record-format.md "Signed documents"):
// `--sign-key KEY` of run, execute, matrix and matrix-merge; `DocumentSigner` reads the key before anything
// runs (a bad key is refused first), adds KEY as an input and `<document>.sig` as an output of `use`,
// `sign()` writes the signature once the document is written and `print()` names it after the results. `keygen --out KEY [--comment TEXT]` writes a
// new Ed25519 key pair (KEY, KEY.pub). `check_signature_of` is validate's and verify's `--key PUB` (read
// once, before any file: a bad PUB is a usage error): "" when the file's signature holds (or no key was
// given), else the problem.
void add_sign_key_option(CLI::App& command, std::string& key);
class DocumentSigner {
 public:
  DocumentSigner(const std::string& key_path, const std::filesystem::path& document, PathUse& use);
  void sign() const;
  void print() const;  // "signature: <document>.sig" among the file lines, when signed

 private:
  std::optional<SshPrivateKey> key_;
  std::filesystem::path document_;
};
// `rejudge DOCUMENT [--rtol X] [--atol Y] --output OUT` (cli/rejudge_command.cc, doc/rejudge.md).
struct RejudgeArgs {
  std::string document;
  std::optional<double> rtol;
  std::optional<double> atol;
  std::string output;
};
void add_rejudge_command(CLI::App& app, RejudgeArgs& args);
int rejudge_command(const RejudgeArgs& args);

struct KeygenArgs {
  std::string out;
  std::string comment;
};
void add_keygen_command(CLI::App& app, KeygenArgs& args);
int keygen_command(const KeygenArgs& args);
std::optional<SshPublicKey> public_key_of(const std::string& path);
std::string check_signature_of(const std::string& file, const std::optional<SshPublicKey>& key);

// `run`, and `check` (cli/check_command.cc): one profile named by flags that are its JSON keys one to one
// (`--name gru --module m.py:gru ...`), run as `run` runs a profile file holding that object. Both take the
// flags of add_run_options (--output, --artifacts, --jobs, ...). check_profile_object reads check's leftover
// words into the profile object (a usage error when they are not --KEY VALUE pairs).
void add_run_command(CLI::App& app, RunArgs& args);
void add_run_options(CLI::App& run, RunArgs& args);
CLI::App* add_check_command(CLI::App& app, RunArgs& args);
nlohmann::json check_profile_object(const std::vector<std::string>& words);
int run_command(const RunArgs& args, const Seams& seams);

void add_record_commands(CLI::App& app, RecordArgs& args);
int record_command(CLI::App& app, const RecordArgs& args, const Seams& seams);

// Parses, runs the verb and maps every error to its exit code and one line on stderr.
int cli_main(int argc, char** argv, const Seams& seams = {});

}  // namespace nnx::cli
