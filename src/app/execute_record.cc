#include "app/execute_record.h"

#include <algorithm>

#include <sys/utsname.h>

#include "base/build_info.h"
#include "base/document_kind.h"
#include "app/repro_record.h"
#include "app/worker_pool.h"
#include "artifacts/layout.h"
#include "base/failure.h"
#include "model/model_config.h"
#include "model/reference_model.h"
#include "record/record.h"
#include "record/run_name.h"
#include "stages/localisation_dump.h"
#include "stages/module_localisation.h"
#include "stages/module_reference.h"
#include "stages/stages.h"
#include "worker/worker_protocol.h"
#include "worker/exporter_client.h"
#include "worker/worker_command.h"

namespace nnx {
namespace {

namespace wire = worker_protocol;
namespace versions_key = rf::versions_key;
namespace report_key = rf::report_key;
namespace detail_key = rf::detail_key;

std::string platform_text() {
  struct utsname u {};
  if (::uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + "-" + u.release + "-" + u.machine;
}

// The worker that computes the torch reference, started and asked for torch and numpy (their versions go into
// `versions`); RuntimeUnavailable (exit 10) naming the problem when it cannot serve.
std::unique_ptr<ExporterClient> start_torch_reference(const ExecuteOptions& options, json& versions) {
  std::unique_ptr<ExporterClient> worker;
  json reply;
  try {
    const WorkerCommand command = default_worker_command(options.worker);
    const std::chrono::milliseconds timeout = default_worker_timeout(options.worker_timeout);
    worker = take_warm_worker(command, timeout);  // a call before left it (app/worker_pool.h)
    if (!worker) worker = std::make_unique<ExporterClient>(command, timeout);
    reply = worker->dependencies({versions_key::kTorch, versions_key::kNumpy});
  } catch (const WorkerError& e) {
    throw RuntimeUnavailable(std::string("the torch reference needs the exporter worker: ") + e.what());
  }
  std::string problems;
  for (const auto& p : reply.at(wire::kProblems)) problems += (problems.empty() ? "" : "; ") + p.get<std::string>();
  if (!problems.empty()) throw RuntimeUnavailable("the torch reference is unavailable: " + problems);
  for (const char* key : {versions_key::kPython, versions_key::kTorch, versions_key::kNumpy}) {
    versions[key] = reply.at(wire::kEnvironment).value(key, json());
  }
  return worker;
}

// The feed-forward net a v1 record's config builds, its weights checked against the record's digest.
std::unique_ptr<ReferenceModel> rebuilt_model(const Record& record) {
  std::vector<std::string> problems;
  const ModelConfig config = model_config_from_json(record.brief().config, problems);
  if (!problems.empty()) throw ConformanceError("record config cannot be rebuilt: " + problems.front());
  auto model = make_reference_model(config);
  const std::string digest = model->weights_sha256();
  const std::string recorded = record.brief().config[rf::config_key::kWeightsSha256].get<std::string>();
  if (digest != recorded) {
    throw ConformanceError("rebuilt weights have SHA-256 " + digest + ", the record says " + recorded);
  }
  return model;
}

// The environment that produces the new evidence (§7): the previous versions kept under exported_with.
json execution_versions(const Record& record, const std::string& runtime_name, const json& runtime_version,
                        const std::string& library, ReferenceKind reference) {
  json versions = json::object();
  const bool executed_before = record.versions.contains(versions_key::kExportedWith);
  versions[versions_key::kExportedWith] =
      executed_before ? record.versions[versions_key::kExportedWith] : record.versions;
  versions[versions_key::kThisSoftware] = build_version();
  versions[runtime_name] = runtime_version;
  versions[runtime_name + versions_key::kLibrarySuffix] = library;
  versions[versions_key::kPlatform] = platform_text();
  versions[versions_key::kReference] = std::string(reference_name(reference));
  versions[versions_key::kExecutedBy] = reference == ReferenceKind::torch ? "nnx-conformance execute (torch reference)"
                                                                          : "nnx-conformance execute (C++ only)";
  return versions;
}

}  // namespace

namespace {

// What the record holds besides PyTorch for parity to compare with: where execute tells the record's kind.
// A kind with a native net has it (rebuilt from the record's config); any other, its stored outputs (§10, §11).
RecordReference reference_held(const Record& record) {
  return model_kind_facts(record.kind()).native_net ? RecordReference::feed_forward_network
                                                     : RecordReference::module_outputs;
}

// The C++ reference model execute rebuilds for a record: the built-in net's from its config; none for a module
// or an ONNX file, whose references are stored tensors.
std::unique_ptr<ReferenceModel> reference_model_of(const Record& record) {
  return model_kind_facts(record.kind()).native_net ? rebuilt_model(record) : nullptr;
}

}  // namespace

ReferenceKind execution_reference(const Record& record, std::optional<ReferenceKind> asked) {
  return reference_for(reference_held(record), asked, front_end());
}

SessionOptions session_to_run(const Record& record, const SessionOverride& wanted) {
  namespace key = rf::session_key;
  SessionOptions session = record.runtime.session;
  if (wanted.optimization_level) session.graph_optimization_level = *wanted.optimization_level;
  if (wanted.intra_op_threads) session.intra_op_num_threads = *wanted.intra_op_threads;
  for (const auto& [k, v] : wanted.config) session.config[k] = v;
  if (session == record.runtime.session) return session;
  if (std::find(key::kOptimizationLevels.begin(), key::kOptimizationLevels.end(), session.graph_optimization_level) ==
      key::kOptimizationLevels.end()) {
    throw UsageError("optimization level " + session.graph_optimization_level + " is not one of ORT_DISABLE_ALL, "
                     "ORT_ENABLE_BASIC, ORT_ENABLE_EXTENDED, ORT_ENABLE_LAYOUT, ORT_ENABLE_ALL");
  }
  if (session.intra_op_num_threads < 1 || session.intra_op_num_threads > key::kMaxIntraOpThreads) {
    throw UsageError("intra-op threads must be from 1 to " + std::to_string(key::kMaxIntraOpThreads) + ", not " +
                     std::to_string(session.intra_op_num_threads));
  }
  for (const auto& [k, v] : session.config) {
    if (k.empty()) throw UsageError("a session config entry needs a KEY (KEY=VALUE), not =" + v);
  }
  return session;
}

std::string provider_to_run(const Record& record, const SessionOverride& wanted) {
  const std::string provider = wanted.provider.value_or(record.runtime.provider);
  if (provider == record.runtime.provider) return provider;
  if (provider.empty()) throw UsageError("an execution provider needs a name (e.g. XnnpackExecutionProvider)");
  return provider;
}

std::map<std::string, std::string> provider_options_to_run(const Record& record, const SessionOverride& wanted) {
  const std::string provider = provider_to_run(record, wanted);
  std::map<std::string, std::string> options;
  if (provider == record.runtime.provider) options = record.runtime.provider_options;
  for (const auto& [k, v] : wanted.provider_options) options[k] = v;
  if (options == record.runtime.provider_options && provider == record.runtime.provider) return options;
  if (provider == rf::runtime_key::kRequiredProvider && !options.empty()) {
    throw UsageError(record.profile + ": " + provider + " takes no provider options (--provider-option " +
                     options.begin()->first + "=" + options.begin()->second + "): they are for a provider named "
                     "with --provider, e.g. OpenVINOExecutionProvider precision=FP32; drop them or name that provider");
  }
  for (const auto& [k, v] : options) {
    if (k.empty()) throw UsageError("a provider option needs a KEY (KEY=VALUE), not =" + v);
  }
  return options;
}

void require_executable_with(const Record& record, const std::filesystem::path& root, const ExecuteOptions& options) {
  session_to_run(record, options.session);  // refused before anything runs
  provider_options_to_run(record, options.session);  // and provider_to_run
  switch (reference_held(record)) {
    case RecordReference::feed_forward_network:
      return;  // its torch reference is the tool's own network: none of the record's code
    case RecordReference::module_outputs:
      if (execution_reference(record, options.reference) == ReferenceKind::torch) {
        factory_to_run(record, options.record_folder, root);  // refused before anything is imported or run
      }
      return;
  }
}

bool is_report(const json& value) { return document_kind_of(value) == DocumentKind::report; }

std::vector<json> records_of(const json& value) {
  const std::optional<DocumentKind> kind = document_kind_of(value);
  if (kind == DocumentKind::matrix) {
    throw UsageError("the document is " + document_kind_text(value) + ", not a record or report: validate it "
                     "as it is, or verify and execute the report it was made from");
  }
  if (!kind) throw ConformanceError(not_a_document_text(value));
  if (kind != DocumentKind::report) return {value};
  std::vector<std::string> problems;
  for (const auto& [key, _] : value.items()) {
    if (key != report_key::kFormat && key != report_key::kStatus && key != report_key::kProfiles) {
      problems.push_back("report: unknown key " + key);
    }
  }
  const json& profiles = value[report_key::kProfiles];
  const json* status = value.contains(report_key::kStatus) ? &value[report_key::kStatus] : nullptr;
  if (!value.contains(report_key::kFormat) || value[report_key::kFormat] != kFormat) {
    problems.push_back("report: format is not " + std::string(kFormat));
  }
  if (!profiles.is_array()) problems.push_back("report: profiles must be a list");
  if (status == nullptr || !status->is_string()) problems.push_back("report: status must be a string");
  if (problems.empty()) {
    bool passed = !profiles.empty();
    for (const auto& r : profiles) passed = passed && r.is_object() && r.value(rf::kStatus, "") == rf::kPassed;
    if (*status != (passed ? rf::kPassed : rf::kFailed)) {
      problems.push_back("report: status \"" + status->get<std::string>() + "\" contradicts its profiles");
    }
  }
  if (!problems.empty()) {
    std::string message = "malformed report:";
    for (const auto& p : problems) message += "\n  " + p;
    throw ConformanceError(message);
  }
  return profiles.get<std::vector<json>>();
}

bool nothing_to_execute(const Record& record) { return record.stage(Stage::check).status != StageStatus::passed; }

Record executable_record(const json& input, const std::filesystem::path& root) {
  Record record = Record::from_json(input);  // validate_record's refusal, every problem named
  if (nothing_to_execute(record)) {
    throw ConformanceError("record of \"" + record.profile +
                           "\" cannot be executed: its check stage did not pass, so no artifacts were recorded");
  }
  require_profile_folder_exists(root, record.artifacts.directory);  // a mistyped root: UsageError (layout.h)
  return record;
}

std::optional<Record> record_to_execute(const json& document, const json& record, const std::filesystem::path& root) {
  if (is_report(document) && nothing_to_execute(Record::from_json(record))) return std::nullopt;
  return executable_record(record, root);
}

// The reference execute compares with: the one asked for, PyTorch's when a record with a module is localised
// (localisation.h compares with PyTorch's intermediates; another one asked for is a UsageError). A data-only
// record's localisation compares with ONNX's reference evaluator (module_localisation.h values_from).
std::optional<ReferenceKind> asked_reference(const Record& record, const ExecuteOptions& options) {
  if (options.localize == LocaliseWhen::never || values_from(record) != ValuesFrom::pytorch) return options.reference;
  if (options.reference && *options.reference != ReferenceKind::torch) {
    throw UsageError("--localize compares ONNX Runtime with PyTorch's intermediate values, so it implies "
                     "--reference torch: drop the other --reference, or --localize");
  }
  return ReferenceKind::torch;
}

// A matrix's parting step (run_options.h ExecuteOptions::Parting) on the executed record.
void run_parting(StageContext& context, const ExecuteOptions::Parting& parting, const LocaliseLimits& limits) {
  switch (parting.step) {
    case ExecuteOptions::Parting::Step::dump: return dump_runtime_values(context, parting.case_name, parting.folder);
    case ExecuteOptions::Parting::Step::compare:
      context.localise_case = parting.case_name;
      context.other_runtime_values = parting.folder;
      context.other_runtime_label = parting.label;
      localise_after_parity(context, LocaliseWhen::always, limits);
      return;
  }
}

// How a repro's record is made under execute: its runtime and worker.
RunOptions repro_run_options(const ExecuteOptions& options) {
  RunOptions run;
  run.onnxruntime_library = options.onnxruntime_library;
  run.open_runtime = options.open_runtime;
  run.worker = options.worker;
  run.worker_timeout = options.worker_timeout;
  return run;
}

json execute_record(const json& input, const std::filesystem::path& root, const ExecuteOptions& given) {
  Record record = executable_record(input, root);
  ExecuteOptions options = given;
  options.reference = asked_reference(record, given);
  require_executable_with(record, root, options);
  const ReferenceKind reference = execution_reference(record, options.reference);
  std::shared_ptr<Runtime> runtime = options.open_runtime(record.runtime.name, options.onnxruntime_library);
  const std::unique_ptr<ReferenceModel> model = reference_model_of(record);
  json versions = execution_versions(record, runtime->name(), runtime->version(), runtime->location(), reference);
  std::unique_ptr<ExporterClient> worker;
  if (reference == ReferenceKind::torch) worker = start_torch_reference(options, versions);
  record.versions = std::move(versions);
  record.runtime.version = runtime->version();
  record.runtime.session = session_to_run(record, options.session);
  record.runtime.provider_options = provider_options_to_run(record, options.session);
  record.runtime.provider = provider_to_run(record, options.session);
  record.settle_format_for_settings();  // a tested profile's record under other settings: §11's kind built-in
  record_host_facts(record);
  record.reset_input_cases();
  for (Stage s : {Stage::load, Stage::parity}) record.reset_stage(s);
  StageContext context{record, root, model.get()};
  context.runtime = std::move(runtime);
  context.reference = reference;  // parity's provider: the native forward, the stored outputs or PyTorch
  context.record_folder = options.record_folder;
  context.case_timeout = options.case_timeout;
  context.exporter = std::move(worker);
  if (options.localize != LocaliseWhen::never) {  // a data-only record's localisation asks the worker too
    context.worker_command = default_worker_command(options.worker);
    context.worker_timeout = default_worker_timeout(options.worker_timeout);
  }
  std::vector<KeptCase> kept;
  if (options.keep_outputs) context.kept_cases = &kept;
  run_stages(context, kExecutePipeline);
  if (options.keep_outputs) {
    options.keep_outputs({run_name_of(record), record.profile, std::move(kept)});
  }
  if (options.parting) {
    run_parting(context, *options.parting, options.localise_limits);
    record.finalize();
    return record.to_json();
  }
  localise_record(context, options.localize, options.localise_limits,
                  options.repro_root ? std::optional(*options.repro_root / record.artifacts.directory) : std::nullopt,
                  repro_run_options(options));
  keep_warm_worker(std::move(context.exporter));  // the next call's worker, or stopped
  record.finalize();
  return record.to_json();
}

}  // namespace nnx

namespace nnx {

json failed_execution_record(const json& input, const FailedExecution& failed) {
  Record record = Record::from_json(input);
  const std::string name = record.runtime.name;
  const json version = failed.runtime_version ? json(*failed.runtime_version) : json();
  record.versions = execution_versions(record, name, version, failed.library,
                                       execution_reference(record, ReferenceKind::native));
  record.runtime.version = version;
  record.reset_input_cases();
  for (Stage s : {Stage::load, Stage::parity}) record.reset_stage(s);
  if (failed.failure == FailureClass::runtime_error) {
    record.set_stage_passed(Stage::load, json{{detail_key::kSession, detail_key::kSessionCreated}});
    std::vector<std::string> names;
    for (auto& c : record.input_cases) {
      c.outcome = rf::kOutcomeError;
      c.passed = false;
      c.failure = FailureClass::runtime_error;
      c.detail = c.name == failed.failed_case ? failed.error : "not completed: " + failed.error;
      names.push_back(c.name);
    }
    record.set_stage_failed(Stage::parity, FailureClass::runtime_error,
                            json{{detail_key::kError, failed.error}, {detail_key::kFailedCases, names}});
  } else {
    record.set_stage_failed(Stage::load, FailureClass::load_error, json{{detail_key::kError, failed.error}});
  }
  record.finalize();
  return record.to_json();
}

}  // namespace nnx
