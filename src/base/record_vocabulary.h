// The record vocabulary of nnx.export-conformance/1 (doc/record-format.md §1, §5, §8): every name the
// tool writes into or reads from its documents, at the bottom layer so that every layer spells them from
// here. It holds the format ids (the record, the runtime matrix of doc/runtime-matrix.md), the stage list
// and its names, the level names, the record's keys and the keys of each of its parts, the values a record
// states (stage statuses, case outcomes and expectations, artifact roles, source origins), the `versions`
// keys, the stages' detail keys, a profile's keys (§3), the report's keys (§8) and the runtime matrix's
// keys. Names only: the rules over them (the case table, derive_outcome) are record/record_format.h's;
// failure classes, their names and exit codes are base/failure.h's. The worker protocol's keys are not a
// document's: they are the worker layer's (worker/worker_protocol.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nnx {

// ---- format ids -------------------------------------------------------------------------------------------

inline constexpr std::string_view kFormat = "nnx.export-conformance/1";  // a record and a report (§5, §8)
inline constexpr const char* kMatrixFormat = "nnx.runtime-matrix/1";     // doc/runtime-matrix.md
inline constexpr std::string_view kModuleFormat = "nnx.module-conformance/1";  // a module profile's record (§10)
inline constexpr std::string_view kModelFormat = "nnx.model-conformance/1";  // the successor format (§11)
// Every record format the tool writes and reads, oldest first: `--version` and the HTML page's header name
// them from here, so a new format is one line more.
inline constexpr std::string_view kRecordFormats[] = {
    kFormat,
    kModuleFormat,
    kModelFormat,
};

// ---- the stage list (§1, §4) -------------------------------------------------------------------------------

enum class Stage { dependencies, export_model, check, load, parity };
inline constexpr std::array<Stage, 5> kStages = {Stage::dependencies, Stage::export_model, Stage::check,
                                                 Stage::load, Stage::parity};
// Every array indexed by stage_index is sized by this count, so that a stage added to kStages without its
// entry in a per-stage table fails the build.
inline constexpr std::size_t kStageCount = kStages.size();
// The stages' names, by stage_index, as the record spells them (stages.<name>).
inline constexpr std::array<const char*, kStageCount> kStageNames = {"dependencies", "export", "check", "load",
                                                                     "parity"};

constexpr std::size_t stage_index(Stage stage) { return static_cast<std::size_t>(stage); }
std::string_view stage_name(Stage stage);
std::optional<Stage> parse_stage(std::string_view name);

// ---- levels (§1 Level) ---------------------------------------------------------------------------------------

enum class Level { executed, structural, none };
inline constexpr std::array<const char*, 3> kLevelNames = {"executed", "structural", "none"};

std::string_view level_name(Level level);
std::optional<Level> parse_level(std::string_view name);

namespace rf {

// ---- the 17 top-level keys (§5), in the order the record lists them --------------------------------------

inline constexpr const char* kFormat = "format";
inline constexpr const char* kProfile = "profile";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kFailure = "failure";
inline constexpr const char* kLevel = "level";
inline constexpr const char* kSource = "source";
inline constexpr const char* kConfig = "config";
inline constexpr const char* kExporter = "exporter";
inline constexpr const char* kOpset = "opset";
inline constexpr const char* kArtifacts = "artifacts";
inline constexpr const char* kVersions = "versions";
inline constexpr const char* kRuntime = "runtime";
inline constexpr const char* kDtype = "dtype";
inline constexpr const char* kInputCases = "input_cases";
inline constexpr const char* kTolerances = "tolerances";
inline constexpr const char* kModelState = "model_state";
inline constexpr const char* kStages = "stages";

inline constexpr std::array<const char*, 17> kRecordKeys = {
    kFormat,   kProfile,  kStatus,  kFailure, kLevel,      kSource,     kConfig,     kExporter, kOpset,
    kArtifacts, kVersions, kRuntime, kDtype,   kInputCases, kTolerances, kModelState, kStages};

// ---- the values a record states (§1, §4, §5) --------------------------------------------------------------

inline constexpr const char* kPassed = "passed";   // a stage or record status
inline constexpr const char* kFailed = "failed";   // a stage or record status
inline constexpr const char* kNotRun = "not_run";  // a stage status

inline constexpr const char* kExpectMatch = "match";
inline constexpr const char* kExpectRejected = "rejected";

// Case outcomes (§5); a blank case has none (null).
inline constexpr const char* kOutcomeMatch = "match";
inline constexpr const char* kOutcomeMismatch = "mismatch";
inline constexpr const char* kOutcomeRejected = "rejected";
inline constexpr const char* kOutcomeAccepted = "accepted";
inline constexpr const char* kOutcomeError = "error";
inline constexpr std::array<const char*, 5> kOutcomes = {kOutcomeMatch, kOutcomeMismatch, kOutcomeRejected,
                                                         kOutcomeAccepted, kOutcomeError};

// Artifact roles (§4 check).
inline constexpr const char* kRoleModel = "model";
inline constexpr const char* kRoleExternalData = "external-data";
inline constexpr const char* kRoleSidecar = "sidecar";
inline constexpr std::array<const char*, 3> kRoles = {kRoleModel, kRoleExternalData, kRoleSidecar};
// A module record's stored tensors (doc/record-format.md §10; artifacts/layout.h has their paths). Only a
// module record may list them; its files may have every role of kRoles and kModuleRoles.
inline constexpr const char* kRoleTestInput = "test-input";
inline constexpr const char* kRoleTestOutput = "test-output";
inline constexpr const char* kRoleOracleOutput = "oracle-output";
inline constexpr const char* kRoleRefusalInput = "refusal-input";
inline constexpr std::array<const char*, 4> kModuleRoles = {kRoleTestInput, kRoleTestOutput, kRoleOracleOutput,
                                                            kRoleRefusalInput};
// A localisation's repro (doc/localisation.md, "The repro"): the files under kReproFolder of a module or
// successor-format record's profile folder; never in a v1 record.
inline constexpr const char* kRoleRepro = "repro";
inline constexpr const char* kReproFolder = "repro";

// Source origins (§5, §8).
inline constexpr const char* kOriginGiven = "given";
inline constexpr const char* kOriginGit = "git";
inline constexpr const char* kOriginUnknown = "unknown";

// ---- the keys of each part (§5) ------------------------------------------------------------------------

namespace stage_key {  // stages.<name>
inline constexpr const char* kStatus = "status";
inline constexpr const char* kFailure = "failure";
inline constexpr const char* kDetail = "detail";
inline constexpr std::array<const char*, 3> kKeys = {kStatus, kFailure, kDetail};
}  // namespace stage_key

namespace case_key {  // input_cases[i]
inline constexpr const char* kName = "name";
inline constexpr const char* kShape = "shape";
inline constexpr const char* kSeed = "seed";
inline constexpr const char* kExpect = "expect";
inline constexpr const char* kOutcome = "outcome";
inline constexpr const char* kPassed = "passed";
inline constexpr const char* kFailure = "failure";
inline constexpr const char* kMaxAbsError = "max_abs_error";
inline constexpr const char* kMaxRelError = "max_rel_error";
inline constexpr const char* kDetail = "detail";
inline constexpr std::array<const char*, 10> kKeys = {kName,    kShape,   kSeed,        kExpect,      kOutcome,
                                                      kPassed,  kFailure, kMaxAbsError, kMaxRelError, kDetail};
inline constexpr std::array<const char*, 2> kErrors = {kMaxAbsError, kMaxRelError};
}  // namespace case_key

namespace artifacts_key {  // artifacts
inline constexpr const char* kDirectory = "directory";
inline constexpr const char* kModel = "model";
inline constexpr const char* kFiles = "files";
inline constexpr std::array<const char*, 3> kKeys = {kDirectory, kModel, kFiles};
}  // namespace artifacts_key

namespace file_key {  // artifacts.files[i]
inline constexpr const char* kPath = "path";
inline constexpr const char* kRole = "role";
inline constexpr const char* kBytes = "bytes";
inline constexpr const char* kSha256 = "sha256";
inline constexpr std::array<const char*, 4> kKeys = {kPath, kRole, kBytes, kSha256};
}  // namespace file_key

namespace runtime_key {  // runtime
inline constexpr const char* kName = "name";
inline constexpr const char* kVersion = "version";
inline constexpr const char* kProvider = "provider";
inline constexpr const char* kSession = "session";
inline constexpr std::array<const char*, 4> kKeys = {kName, kVersion, kProvider, kSession};
inline constexpr const char* kRequiredProvider = "CPUExecutionProvider";  // the brief's (a v1 record's only)
// A module or successor-format record's provider options (§11, "session settings"): KEY: VALUE strings given to
// the provider when the session appends it, present only when one is set; the CPU provider takes none.
inline constexpr const char* kProviderOptions = "provider_options";
}  // namespace runtime_key

namespace session_key {  // runtime.session: in a v1 record exactly these keys with exactly these values (§4 load)
inline constexpr const char* kIntraOpThreads = "intra_op_num_threads";
inline constexpr const char* kInterOpThreads = "inter_op_num_threads";
inline constexpr const char* kOptimizationLevel = "graph_optimization_level";
inline constexpr std::array<const char*, 3> kKeys = {kIntraOpThreads, kInterOpThreads, kOptimizationLevel};
inline constexpr std::int64_t kRequiredIntraOpThreads = 1;
inline constexpr std::int64_t kRequiredInterOpThreads = 1;
inline constexpr const char* kRequiredOptimizationLevel = "ORT_ENABLE_ALL";
// A module or successor-format record's session may name other settings, kept exactly as run (§11, "session
// settings"): any of these levels (ONNX Runtime's GraphOptimizationLevel 0, 1, 2, 3, 99; LAYOUT is 3, which
// releases before it refuse), 1 to kMaxIntraOpThreads intra-op threads, and `config`, the session config entries
// set (KEY: VALUE, both strings), present only when one is.
inline constexpr std::array<const char*, 5> kOptimizationLevels = {"ORT_DISABLE_ALL", "ORT_ENABLE_BASIC",
                                                                  "ORT_ENABLE_EXTENDED", "ORT_ENABLE_LAYOUT",
                                                                  "ORT_ENABLE_ALL"};
inline constexpr std::int64_t kMaxIntraOpThreads = 256;
inline constexpr const char* kConfig = "config";
}  // namespace session_key

namespace opset_key {  // opset
inline constexpr const char* kRequested = "requested";
inline constexpr const char* kModel = "model";
inline constexpr std::array<const char*, 2> kKeys = {kRequested, kModel};
}  // namespace opset_key

namespace exporter_key {  // exporter, and the 7 exporter options of §3
inline constexpr const char* kName = "name";
inline constexpr const char* kOptions = "options";
inline constexpr std::array<const char*, 2> kKeys = {kName, kOptions};
inline constexpr const char* kOptionExporter = "exporter";
inline constexpr const char* kOptionDynamo = "dynamo";
inline constexpr const char* kOptionOpsetVersion = "opset_version";
inline constexpr const char* kOptionDynamicBatch = "dynamic_batch";
inline constexpr const char* kOptionExportBatch = "export_batch";
inline constexpr const char* kOptionInputNames = "input_names";
inline constexpr const char* kOptionOutputNames = "output_names";
inline constexpr const char* kOptionDynamicDims = "dynamic_dims";  // a module record's: {dim: [[input, axis]]}
}  // namespace exporter_key

// The exporters a record names (exporter.name, §3).
inline constexpr const char* kExporterTorchscript = "torchscript";
inline constexpr const char* kExporterDynamo = "dynamo";

namespace tolerance_key {  // tolerances
inline constexpr const char* kRtol = "rtol";
inline constexpr const char* kAtol = "atol";
inline constexpr std::array<const char*, 2> kKeys = {kRtol, kAtol};
}  // namespace tolerance_key

namespace model_state_key {  // model_state (§4 export): each true iff that part is unchanged
inline constexpr const char* kParameters = "parameters";
inline constexpr const char* kGradients = "gradients";
inline constexpr const char* kModes = "modes";
inline constexpr std::array<const char*, 3> kKeys = {kParameters, kGradients, kModes};
}  // namespace model_state_key

namespace source_key {  // source
inline constexpr const char* kRevision = "revision";
inline constexpr const char* kOrigin = "origin";
inline constexpr const char* kDirty = "dirty";
inline constexpr const char* kVersion = "version";
}  // namespace source_key

namespace config_key {  // config: the §2 model config plus its digest (also a profile's "model", §3)
inline constexpr const char* kNet = "net";
inline constexpr const char* kInputDim = "input_dim";
inline constexpr const char* kHiddenDims = "hidden_dims";
inline constexpr const char* kOutputDim = "output_dim";
inline constexpr const char* kActivation = "activation";
inline constexpr const char* kDropout = "dropout";
inline constexpr const char* kWeights = "weights";
inline constexpr const char* kWeightsSha256 = "weights_sha256";
inline constexpr const char* kGenerator = "generator";        // config.weights.generator
inline constexpr const char* kSeed = "seed";                  // config.weights.seed
inline constexpr const char* kDistribution = "distribution";  // config.weights.distribution
inline constexpr const char* kStd = "std";                    // config.weights.std
}  // namespace config_key

namespace versions_key {  // versions: free-form; the writer starts it with this software's version
inline constexpr const char* kThisSoftware = "nnx";
inline constexpr const char* kPython = "python";
inline constexpr const char* kPlatform = "platform";
inline constexpr const char* kTorch = "torch";
inline constexpr const char* kNumpy = "numpy";
inline constexpr const char* kOnnx = "onnx";
inline constexpr const char* kOnnxscript = "onnxscript";
inline constexpr const char* kDependencyLockSha256 = "dependency_lock_sha256";
inline constexpr const char* kLibrarySuffix = "_library";  // "<runtime name>_library": the library opened
// Written by execute (§7): the versions the record was exported with, the reference and who executed it.
inline constexpr const char* kExportedWith = "exported_with";
inline constexpr const char* kReference = "reference";
inline constexpr const char* kExecutedBy = "executed_by";
// The machine a module or successor-format record was run or executed on (base/host_facts.h); never in a v1
// record (record/record.h record_host_facts).
inline constexpr const char* kHost = "host";
}  // namespace versions_key

// Parity's references (§4 parity, §7 execute): stages.parity.detail.reference and versions.reference.
inline constexpr const char* kReferenceTorch = "torch";
inline constexpr const char* kReferenceNative = "native";
inline constexpr const char* kReferenceStored = "stored";  // a module record's outputs stored by its run (§10)

namespace detail_key {  // stages.<name>.detail (§4): what each stage states beside its status
inline constexpr const char* kFactoryRun = "factory_run";  // execute --reference torch of a module record: what ran
inline constexpr const char* kError = "error";
inline constexpr const char* kLog = "log";
inline constexpr const char* kCode = "code";
inline constexpr const char* kProvider = "provider";
inline constexpr const char* kProviders = "providers";
inline constexpr const char* kProblems = "problems";
inline constexpr const char* kLoaded = "loaded";
inline constexpr const char* kSession = "session";
inline constexpr const char* kSessionCreated = "created";  // the value of load's `session` after execute
inline constexpr const char* kWarnings = "warnings";
inline constexpr const char* kChanged = "changed";
inline constexpr const char* kExport = "export";
inline constexpr const char* kOpset = "opset";
inline constexpr const char* kIrVersion = "ir_version";
inline constexpr const char* kProducer = "producer";
inline constexpr const char* kInputs = "inputs";
inline constexpr const char* kOutputs = "outputs";
inline constexpr const char* kReference = "reference";
inline constexpr const char* kTriangulation = "triangulation";
// parity with more than one intra-op thread: each case run twice, {threads, runs, identical, cases_differing}
inline constexpr const char* kDeterministic = "deterministic";
inline constexpr const char* kWeightsInModel = "weights_in_model";
inline constexpr const char* kWeightsProblem = "weights_problem";
inline constexpr const char* kCases = "cases";
inline constexpr const char* kCompared = "compared";
inline constexpr const char* kFailedCases = "failed_cases";
inline constexpr const char* kBlame = "blame";
inline constexpr const char* kUnusedInputs = "unused_inputs";      // a module record's parity (§10)
inline constexpr const char* kMissingWeights = "missing_weights";  // a module record's parity (§10)
inline constexpr const char* kWeights = "weights";                 // a module record's export (§10)
// load's and parity's in a module or model record (§10, §11): the runtime's log messages, text only
inline constexpr const char* kRuntimeLog = "runtime_log";
}  // namespace detail_key

namespace triangulation_key {  // stages.parity.detail.triangulation[i] (§4 parity)
inline constexpr const char* kCase = "case";
inline constexpr const char* kRows = "rows";
inline constexpr const char* kMargin = "margin";
inline constexpr const char* kMaxAbsError = "max_abs_error";
inline constexpr const char* kRuntimeVsOracle = "runtime_vs_oracle";
inline constexpr const char* kReferenceVsOracle = "reference_vs_oracle";
inline constexpr const char* kNativeVsReference = "native_vs_reference";
// a module record's departure from a stored oracle that could not be measured: {max_abs_error: null,
// margin: null, reason} (§10)
inline constexpr const char* kReason = "reason";
// stages.parity.detail.blame
inline constexpr const char* kBlameWeights = "weights";
inline constexpr const char* kBlameRuntimeOrGraph = "runtime-or-graph";
inline constexpr const char* kBlameReference = "reference";
inline constexpr const char* kBlameBoth = "both";
}  // namespace triangulation_key

namespace settings_key {  // the canonical settings object of §3
inline constexpr const char* kTolerances = "tolerances";
inline constexpr const char* kInputCases = "input cases";
inline constexpr const char* kDtype = "dtype";
inline constexpr const char* kRuntime = "runtime";
inline constexpr const char* kExporterOptions = "exporter options";
inline constexpr const char* kModelConfig = "model config";
inline constexpr const char* kArtifactDirectory = "artifact directory";
inline constexpr const char* kModule = "module";  // a module profile's spec (§10), instead of the model config
}  // namespace settings_key

namespace profile_key {  // a profile object as a profile file and the Python Profile spell it (§3)
inline constexpr const char* kName = "name";
inline constexpr const char* kExporter = "exporter";
inline constexpr const char* kOpsetVersion = "opset_version";
inline constexpr const char* kExportBatch = "export_batch";
inline constexpr const char* kDynamicBatch = "dynamic_batch";
inline constexpr const char* kBatches = "batches";
inline constexpr const char* kRtol = "rtol";
inline constexpr const char* kAtol = "atol";
inline constexpr const char* kRuntime = "runtime";
inline constexpr const char* kProvider = "provider";
inline constexpr const char* kDtype = "dtype";
inline constexpr const char* kModel = "model";  // the model config's keys are config_key's
// The alias spelling of opset_version and of rtol, atol, in either kind (profile/profile_spelling.h).
inline constexpr const char* kOpset = "opset";
inline constexpr const char* kTolerances = "tolerances";
}  // namespace profile_key

namespace report_key {  // the report file (§8)
inline constexpr const char* kFormat = "format";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kProfiles = "profiles";
}  // namespace report_key

}  // namespace rf
}  // namespace nnx

