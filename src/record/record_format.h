// The rules of a record of nnx.export-conformance/1 over its vocabulary (base/record_vocabulary.h, which
// spells every key name and value; doc/record-format.md §5): stage and record statuses as types, the one
// rule that derives a record's status, failure and level from its stages (`derive_outcome`, used by both
// the writer's `finalize_record` and the validator's summary check), the case table, which outcomes are
// compared, and a failed parity's class from its failure order (§4 parity: `parity_failure_class`, used by
// the parity stage and the validator). The writer (record.cc), the
// validator (validate_*.cc), the settings rebuild (profile_rebuild.cc) and the report (report.cc) take
// their tables from here; failure classes and exit codes stay in base/failure.h (§1).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "base/failure.h"
#include "base/model_kind.h"
#include "base/record_vocabulary.h"

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

// What the stages give the record: status `passed` iff every stage passed; failure = the class of the
// earliest failed stage (nullopt when none failed, or when that stage names no known class); level
// `executed` when parity passed, or when parity failed after ONNX Runtime returned a case's outputs
// (`cases_ran`, counted only for a record whose kind counts them: level_counts_run_cases), else
// `structural` when check passed, else `none`.
struct RecordOutcome {
  RecordStatus status = RecordStatus::failed;
  std::optional<FailureClass> failure;
  Level level = Level::none;
  std::optional<Stage> first_failed;  // the earliest stage whose status is `failed`
};

// Stages are indexed by stage_index (dependencies, export, check, load, parity).
RecordOutcome derive_outcome(const std::array<StageOutcome, kStageCount>& stages, bool cases_ran = false);

// Whether a record of form `form` says in its level what ran (doc/record-format.md §10): a named-tensors
// record is `executed` once ONNX Runtime returned a case's outputs, passed or not; the brief's record (a
// tested profile's) keeps §1's level exactly.
bool level_counts_run_cases(RecordForm form);

// Whether ONNX Runtime returned outputs for a case of this outcome (`match`, `mismatch`, `accepted`).
bool runtime_returned_outputs(std::string_view outcome);

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

// A failed parity names the first of these classes present among its failing cases (§4 parity).
inline constexpr std::array<FailureClass, 3> kParityFailureOrder = {
    FailureClass::runtime_error, FailureClass::mismatch, FailureClass::input_contract};

}  // namespace rf
}  // namespace nnx
