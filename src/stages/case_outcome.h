// A parity case's outcome when nothing was compared (doc/record-format.md §4 parity, §5 the case table),
// the one rule of the parity stage (parity.cc) for every kind: a refusal as an invalid argument is `rejected` (input-contract unless a refusal was
// expected), any other runtime failure `error` (runtime-error), and a run of a case that had to be refused
// `accepted` (input-contract). Each returns whether the runtime departed from what the case expected.
// `record_parity_stage` is the stage's outcome from its cases: passed, or failed with the
// failed cases, the blame and the first of runtime-error, mismatch, input-contract (§4 parity).
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "record/record.h"
#include "runtime/runtime.h"
#include "stages/triangulation.h"

namespace nnx {

// An outcome without compared values: errors null, a detail saying what happened.
void set_case_outcome(RecordCase& c, const char* outcome, std::optional<FailureClass> failure, std::string detail);

// The case's outcome for a run the runtime refused or failed.
bool record_runtime_failure(RecordCase& c, const RuntimeFailure& failure);

// The case's outcome for a run the runtime refused or failed while the graph fixes one of the case's
// dimensions at another size (`frozen` says which and where, e.g. "the graph fixes seq at 10 (Reshape
// '/attn/Reshape_4')"): `rejected`, input-contract, whatever status code the kernel returned — one class for
// one cause (doc/record-format.md §10, dims_in_graph); the detail keeps the code and message.
bool record_frozen_size_failure(RecordCase& c, const RuntimeFailure& failure, const std::string& frozen);

// The case's outcome for a run of a case that had to be refused; `outputs` says what the runtime returned.
bool record_unexpected_run(RecordCase& c, const std::string& outputs);

// Sets the parity stage from the cases' failures: passed (`detail` gains the case count and `compared`), or
// failed (`detail` gains the failed cases' names and the blame of `blame`). Returns whether it passed.
bool record_parity_stage(Record& record, nlohmann::json detail, std::size_t compared, const BlameEvidence& blame);

}  // namespace nnx
