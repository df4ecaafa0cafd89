// What a front end may choose for a run or an execute, and the seams tests use (doc/architecture.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "app/run_observer.h"
#include "stages/kept_outputs.h"
#include "record/record.h"
#include "runtime/run_watchdog.h"
#include "runtime/runtime.h"
#include "stages/localisation.h"
#include "stages/reference_kind.h"
#include "worker/worker_process.h"

namespace nnx {

// --optimization-level, --intra-op-threads, --session-config, --provider-option of run and execute (doc/record-format.md §11,
// "session settings"): what they change of a record's runtime.session, each part not given kept as the record
// says (a config KEY given replaces that entry's value). app/execute_record.h session_to_run is the one rule.
struct SessionOverride {
  std::optional<std::string> optimization_level;  // one of rf::session_key::kOptimizationLevels
  std::optional<std::int64_t> intra_op_threads;   // 1 to rf::session_key::kMaxIntraOpThreads
  std::map<std::string, std::string> config;
  std::optional<std::string> provider;  // --provider: the execution provider (app/execute_record.h provider_to_run)
  // --provider-option KEY=VALUE: given to the provider when the session appends it; they replace the record's own
  // entry by entry, or all of them when another provider is named (app/execute_record.h provider_options_to_run).
  std::map<std::string, std::string> provider_options;
};

struct RunOptions {
  std::optional<std::filesystem::path> onnxruntime_library;  // see runtime/onnx_runtime.h for the search order
  std::optional<WorkerCommand> worker;                      // default: default_worker_command()
  std::optional<std::string> source_revision;               // given; an empty string means null
  // Per worker request; default: default_worker_timeout() (NNX_WORKER_TIMEOUT_SECONDS, else 600 s).
  std::optional<std::chrono::milliseconds> worker_timeout;
  RuntimeOpener open_runtime = &nnx::open_runtime;          // the runtime seam (tests wrap it)
  std::shared_ptr<RunObserver> observer;                    // progress and timings (app/run_observer.h)
  // Profiles exported at once, each by its own warm worker (app/run_profiles.h); default (unset): "auto",
  // auto_workers(profiles, cores) of app/run_profiles.h: one worker plus those the profiles' warm exports pay
  // for, at most one per core. A value below 1 is a UsageError.
  std::optional<int> jobs;
  // The source block, when a caller already resolved it (run_profiles does, once per run); otherwise
  // run_profile resolves `source_revision` itself (app/source.h).
  std::optional<SourceInfo> source;
  // What the run's input cases may cost in memory (profile/memory_budget.h); default: machine_memory_limit().
  std::optional<std::uint64_t> memory_limit_bytes;
  // The folder of the report the records go to (run_to_report sets it from the report path): a module
  // record states its factory's file relative to it (profile/module_factory.h); unset (no report file: Python's
  // run_profile): as the profile gives it.
  std::optional<std::filesystem::path> report_folder;
  // When a record's parity is localised (stages/localisation.h; doc/localisation.md): by default a module or
  // imported-file record whose parity found a mismatch; --localize every one, --no-localize none.
  LocaliseWhen localize = LocaliseWhen::parity_failed;
  LocaliseLimits localise_limits;
  // Every record's session under these (app/execute_record.h session_to_run; a tested profile refuses any
  // other, before anything runs); nothing set: the brief's.
  SessionOverride session;
};

struct ExecuteOptions {
  std::optional<std::filesystem::path> onnxruntime_library;
  RuntimeOpener open_runtime = &nnx::open_runtime;
  // What the caller asked parity to compare with; nullopt (none named): each record's default
  // (app/execute_record.h execution_reference, the one rule: stages/reference_kind.h reference_for).
  std::optional<ReferenceKind> reference;
  // The folder of the record or report file (execute_report sets it from document_file): a module record's
  // relative factory is resolved against it under the torch reference; never the current folder.
  std::optional<std::filesystem::path> record_folder;
  std::optional<WorkerCommand> worker;                      // torch reference, --localize; default_worker_command()
  std::optional<std::chrono::milliseconds> worker_timeout;  // default_worker_timeout()
  // One input case's run in the runtime; past it the run is stopped and the case is a runtime-error.
  std::chrono::milliseconds case_timeout{kDefaultRunTimeout};
  // --localize: localise every record that can be (stages/localisation.h); it compares with PyTorch's
  // intermediates, so it implies the torch reference (another reference asked for is a UsageError).
  LocaliseWhen localize = LocaliseWhen::never;
  LocaliseLimits localise_limits;
  // Where execute's localisations write their repros, one folder per profile under it (the CLI: beside
  // --output, "<output stem>-repro"); unset: none is written (the record's folder is never changed).
  std::optional<std::filesystem::path> repro_root;
  // A matrix's parting (matrix/parting.h): after parity, instead of localising, `dump` writes case
  // `case_name`'s values into `folder` (stages/localisation_dump.h), `compare` localises that case against the
  // values there, named `label` (the parity detail's `localisation`; no repro).
  struct Parting {
    enum class Step { dump, compare };
    Step step = Step::dump;
    std::filesystem::path folder;
    std::string case_name;
    std::string label;
  };
  std::optional<Parting> parting;
  // execute --keep-outputs, a matrix's cells: given each executed record's compared outputs and truth
  // (stages/kept_outputs.h), once its parity ran; unset: nothing is kept.
  std::function<void(KeptRecord)> keep_outputs;
  SessionOverride session;  // nothing set: each record's own session
};

}  // namespace nnx
