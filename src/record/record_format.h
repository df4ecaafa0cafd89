// The spelling of a record of nnx.export-conformance/1, shared by its writer and its readers (like LevelDB's
// db/log_format.h, "shared by reader and writer"). This is the ONE place that spells the record's key
// names and the values its rules name: the writer (record.cc), the validator (validate_*.cc), the settings
// rebuild (profile_rebuild.cc) and the report (report.cc) take their strings and tables from here.
//
// The vocabulary of stages, failure classes, levels and exit codes stays in base/failure.h (§1); this
// header adds what is particular to the record (§4, §5): its keys, stage statuses, case outcomes and
// expectations, artifact roles, the fixed session options, the case table, a failed parity's class from its
// failure order (`parity_failure_class`, used by the parity stage and the validator) and the one rule that
// derives a record's status, failure and level from its stages (`derive_outcome`, used by both the writer's
// `finalize_record` and the validator's summary check).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "base/failure.h"

namespace nnx {

// ---- stage status (§1, §5) ---------------------------------------------------------------------------

enum class StageStatus { passed, failed, not_run };
// A record's own status: `passed` iff every stage passed (§5).
enum class RecordStatus { passed, failed };

std::string_view stage_status_name(StageStatus status);
std::optional<StageStatus> parse_stage_status(std::string_view name);
std::string_view record_status_name(RecordStatus status);
std::optional<RecordStatus> parse_record_status(std::string_view name);

// ---- the one status/failure/level rule (§1 Level, §5 status and failure) --------------------------------

// What a stage states: its status and, for a failed stage, its class (nullopt when none or unknown).
struct StageOutcome {
  StageStatus status = StageStatus::not_run;
  std::optional<FailureClass> failure;
};

// What the stages give the record: status `passed` iff all five passed; failure = the class of the
// earliest failed stage (nullopt when none failed, or when that stage names no known class); level
// `executed` when parity passed, else `structural` when check passed, else `none`.
struct RecordOutcome {
  RecordStatus status = RecordStatus::failed;
  std::optional<FailureClass> failure;
  Level level = Level::none;
  std::optional<Stage> first_failed;  // the earliest stage whose status is `failed`
};

// Stages are indexed by stage_index (dependencies, export, check, load, parity).
RecordOutcome derive_outcome(const std::array<StageOutcome, 5>& stages);

// ---- the case table (§5) ----------------------------------------------------------------------------

// One allowed (outcome, expect) pair and the case failure it gives; an empty `expect` means either.
struct CaseRule {
  std::string_view outcome;
  std::string_view expect;
  std::optional<FailureClass> failure;
};

// The case table of §5; nullptr when no run gives the pair.
const CaseRule* case_rule(std::string_view outcome, std::string_view expect);

// A compared outcome carries both errors and a null detail (§5): `match`, or `mismatch` with numbers.
bool is_compared_outcome(std::string_view outcome, bool has_errors);

// A failed parity's class (§4 parity): the first of rf::kParityFailureOrder among `case_failures` (the
// failing cases' classes, any order; other classes are ignored), nullopt when none is there. The parity
// stage and the validator both decide it here.
std::optional<FailureClass> parity_failure_class(std::span<const FailureClass> case_failures);

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

// A failed parity names the first of these classes present among its failing cases (§4 parity).
inline constexpr std::array<FailureClass, 3> kParityFailureOrder = {
    FailureClass::runtime_error, FailureClass::mismatch, FailureClass::input_contract};

// Artifact roles (§4 check).
inline constexpr const char* kRoleModel = "model";
inline constexpr const char* kRoleExternalData = "external-data";
inline constexpr const char* kRoleSidecar = "sidecar";
inline constexpr std::array<const char*, 3> kRoles = {kRoleModel, kRoleExternalData, kRoleSidecar};

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
}  // namespace runtime_key

namespace session_key {  // runtime.session: exactly these keys with exactly these values (§4 load)
inline constexpr const char* kIntraOpThreads = "intra_op_num_threads";
inline constexpr const char* kInterOpThreads = "inter_op_num_threads";
inline constexpr const char* kOptimizationLevel = "graph_optimization_level";
inline constexpr std::array<const char*, 3> kKeys = {kIntraOpThreads, kInterOpThreads, kOptimizationLevel};
inline constexpr std::int64_t kRequiredIntraOpThreads = 1;
inline constexpr std::int64_t kRequiredInterOpThreads = 1;
inline constexpr const char* kRequiredOptimizationLevel = "ORT_ENABLE_ALL";
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
}  // namespace exporter_key

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

namespace config_key {  // config: the §2 model config plus its digest
inline constexpr const char* kWeightsSha256 = "weights_sha256";
inline constexpr const char* kDropout = "dropout";
inline constexpr const char* kWeights = "weights";
inline constexpr const char* kStd = "std";  // config.weights.std
}  // namespace config_key

namespace versions_key {  // versions: free-form; the writer starts it with this software's version
inline constexpr const char* kThisSoftware = "nnx";
}  // namespace versions_key

namespace settings_key {  // the canonical settings object of §3
inline constexpr const char* kTolerances = "tolerances";
inline constexpr const char* kInputCases = "input cases";
inline constexpr const char* kDtype = "dtype";
inline constexpr const char* kRuntime = "runtime";
inline constexpr const char* kExporterOptions = "exporter options";
inline constexpr const char* kModelConfig = "model config";
inline constexpr const char* kArtifactDirectory = "artifact directory";
}  // namespace settings_key

namespace report_key {  // the report file (§8)
inline constexpr const char* kFormat = "format";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kProfiles = "profiles";
}  // namespace report_key

}  // namespace rf
}  // namespace nnx
