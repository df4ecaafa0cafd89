// A parity case's outcome when nothing was compared (case_outcome.h).
#include "stages/case_outcome.h"

#include <utility>
#include <vector>

namespace nnx {

void set_case_outcome(RecordCase& c, const char* outcome, std::optional<FailureClass> failure, std::string detail) {
  c.outcome = outcome;
  c.failure = failure;
  c.passed = !failure;
  c.detail = std::move(detail);
  c.max_abs_error.reset();
  c.max_rel_error.reset();
}

bool record_runtime_failure(RecordCase& c, const RuntimeFailure& failure) {
  const bool expected = failure.invalid_argument() && c.expect == rf::kExpectRejected;
  if (failure.invalid_argument()) {
    set_case_outcome(c, rf::kOutcomeRejected, expected ? std::nullopt : std::optional(FailureClass::input_contract),
                     std::string("refused as an invalid argument: ") + failure.what());
  } else {
    set_case_outcome(c, rf::kOutcomeError, FailureClass::runtime_error,
                     "runtime failed (" + failure.code_name() + "): " + failure.what());
  }
  return !expected;
}

bool record_frozen_size_failure(RecordCase& c, const RuntimeFailure& failure, const std::string& frozen) {
  set_case_outcome(c, rf::kOutcomeRejected, FailureClass::input_contract,
                   "refused: " + frozen + "; runtime failed (" + failure.code_name() + "): " + failure.what());
  return true;
}

bool record_unexpected_run(RecordCase& c, const std::string& outputs) {
  set_case_outcome(c, rf::kOutcomeAccepted, FailureClass::input_contract,
                   "a refusal was expected, but the runtime ran it (output " + outputs + ")");
  return true;
}

bool record_parity_stage(Record& record, nlohmann::json detail, std::size_t compared, const BlameEvidence& blame) {
  namespace detail_key = rf::detail_key;
  std::vector<std::string> failed;
  std::vector<FailureClass> failures;
  for (const auto& c : record.input_cases) {
    if (!c.failure) continue;
    failed.push_back(c.name);
    failures.push_back(*c.failure);
  }
  if (failed.empty()) {
    detail[detail_key::kCases] = record.input_cases.size();
    detail[detail_key::kCompared] = compared;
    record.set_stage_passed(Stage::parity, std::move(detail));
    return true;
  }
  detail[detail_key::kFailedCases] = failed;
  detail[detail_key::kBlame] = blame_of(blame);
  record.set_stage_failed(Stage::parity, parity_failure_class(failures).value_or(FailureClass::input_contract),
                          std::move(detail));
  return false;
}

}  // namespace nnx
