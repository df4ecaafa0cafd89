#include "record/record_format.h"

#include <algorithm>

namespace nnx {
namespace {

constexpr std::array<std::string_view, 3> kStageStatusNames = {rf::kPassed, rf::kFailed, rf::kNotRun};
constexpr std::array<std::string_view, 2> kRecordStatusNames = {rf::kPassed, rf::kFailed};

constexpr std::array<CaseRule, 6> kCaseTable = {{
    {rf::kOutcomeMatch, rf::kExpectMatch, std::nullopt},
    {rf::kOutcomeMismatch, rf::kExpectMatch, FailureClass::mismatch},
    {rf::kOutcomeRejected, rf::kExpectMatch, FailureClass::input_contract},
    {rf::kOutcomeRejected, rf::kExpectRejected, std::nullopt},
    {rf::kOutcomeAccepted, rf::kExpectRejected, FailureClass::input_contract},
    {rf::kOutcomeError, "", FailureClass::runtime_error},
}};

}  // namespace

std::string_view stage_status_name(StageStatus status) { return kStageStatusNames[static_cast<std::size_t>(status)]; }

std::optional<StageStatus> parse_stage_status(std::string_view name) {
  for (std::size_t i = 0; i < kStageStatusNames.size(); ++i) {
    if (kStageStatusNames[i] == name) return static_cast<StageStatus>(i);
  }
  return std::nullopt;
}

std::string_view record_status_name(RecordStatus status) {
  return kRecordStatusNames[static_cast<std::size_t>(status)];
}

std::optional<RecordStatus> parse_record_status(std::string_view name) {
  for (std::size_t i = 0; i < kRecordStatusNames.size(); ++i) {
    if (kRecordStatusNames[i] == name) return static_cast<RecordStatus>(i);
  }
  return std::nullopt;
}

bool level_counts_run_cases(RecordForm form) {
  switch (form) {
    case RecordForm::brief: return false;
    case RecordForm::named_tensors: return true;
  }
  return false;
}

bool runtime_returned_outputs(std::string_view outcome) {
  return outcome == rf::kOutcomeMatch || outcome == rf::kOutcomeMismatch || outcome == rf::kOutcomeAccepted;
}

RecordOutcome derive_outcome(const std::array<StageOutcome, kStageCount>& stages, bool cases_ran) {
  RecordOutcome out;
  bool all_passed = true;
  for (Stage s : kStages) {
    const StageOutcome& stage = stages[stage_index(s)];
    if (stage.status != StageStatus::passed) all_passed = false;
    if (!out.first_failed && stage.status == StageStatus::failed) {
      out.first_failed = s;
      out.failure = stage.failure;
    }
  }
  out.status = all_passed ? RecordStatus::passed : RecordStatus::failed;
  const StageStatus parity = stages[stage_index(Stage::parity)].status;
  if (parity == StageStatus::passed || (parity == StageStatus::failed && cases_ran)) {
    out.level = Level::executed;
  } else if (stages[stage_index(Stage::check)].status == StageStatus::passed) {
    out.level = Level::structural;
  } else {
    out.level = Level::none;
  }
  return out;
}

const CaseRule* case_rule(std::string_view outcome, std::string_view expect) {
  for (const CaseRule& rule : kCaseTable) {
    if (rule.outcome == outcome && (rule.expect.empty() || rule.expect == expect)) return &rule;
  }
  return nullptr;
}

bool is_compared_outcome(std::string_view outcome, bool has_errors) {
  return outcome == rf::kOutcomeMatch || (outcome == rf::kOutcomeMismatch && has_errors);
}

std::optional<FailureClass> parity_failure_class(std::span<const FailureClass> case_failures) {
  for (FailureClass cls : rf::kParityFailureOrder) {
    if (std::find(case_failures.begin(), case_failures.end(), cls) != case_failures.end()) return cls;
  }
  return std::nullopt;
}

}  // namespace nnx
