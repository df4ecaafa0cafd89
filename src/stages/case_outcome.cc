// A parity case's outcome when nothing was compared (case_outcome.h).
#include "stages/case_outcome.h"

#include <utility>

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

bool record_unexpected_run(RecordCase& c, const std::string& outputs) {
  set_case_outcome(c, rf::kOutcomeAccepted, FailureClass::input_contract,
                   "a refusal was expected, but the runtime ran it (output " + outputs + ")");
  return true;
}

}  // namespace nnx
