// Re-judging verdicts from kept outputs, without running anything (doc/rejudge.md; `nnx-conformance rejudge`):
// every record of a report or a runtime matrix whose outputs were kept (stages/kept_outputs.h) has each kept
// case compared again with the same function parity compares with (stages/case_comparison.h
// compare_case_outputs) under the tolerance asked for — `rtol` and `atol` each the record's own when not given
// — and its parity outcome and status derived again by parity's own rules (stages/case_outcome.h
// record_parity_stage, Record::finalize). A case that was not compared (an error, a refusal) or whose outputs
// were not kept keeps its verdict, and says why; a record is matched to its kept outputs by its runtime
// version and profile. Nothing is rewritten: the result is a document of its own, `nnx.rejudged/1`, with
// every case before and after, the verdicts that change, and the exit code `execute` would give for the
// re-judged records (record/report.h exit_code_for).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stages/kept_outputs.h"

namespace nnx {

inline constexpr const char* kRejudgedFormat = "nnx.rejudged/1";

struct RejudgeRequest {
  std::vector<nlohmann::json> records;  // a report's records, or every runtime's records of a matrix, in order
  KeptOutputs kept;
  std::optional<double> rtol;  // nullopt: each record's own
  std::optional<double> atol;
  nlohmann::json document;     // {path, sha256} of the document re-judged, as the front end names it
};

struct RejudgeOutcome {
  nlohmann::json document;            // nnx.rejudged/1
  std::vector<std::string> changes;   // one line per verdict that changed, in record and case order
  int exit_code = 0;                  // execute's for the re-judged records
};

RejudgeOutcome rejudge(const RejudgeRequest& request);

}  // namespace nnx
