#include "app/rejudge.h"

#include <utility>

#include "base/module_record_vocabulary.h"
#include "base/record_vocabulary.h"
#include "record/record.h"
#include "record/run_name.h"
#include "record/record_format.h"
#include "record/report.h"
#include "stages/case_comparison.h"
#include "stages/case_outcome.h"

namespace nnx {
namespace {

using nlohmann::json;

// The document's keys, spelled once.
namespace rejudge_key {
constexpr const char* kFormat = "format";
constexpr const char* kDocument = "document";
constexpr const char* kTolerance = "tolerance";
constexpr const char* kRtol = "rtol";
constexpr const char* kAtol = "atol";
constexpr const char* kStatus = "status";
constexpr const char* kFailure = "failure";
constexpr const char* kExitCode = "exit_code";
constexpr const char* kChanged = "changed";
constexpr const char* kRecords = "records";
constexpr const char* kRuntime = "runtime";
constexpr const char* kProfile = "profile";
constexpr const char* kBefore = "before";
constexpr const char* kAfter = "after";
constexpr const char* kCases = "cases";
constexpr const char* kCase = "case";
constexpr const char* kRejudged = "rejudged";
constexpr const char* kWhy = "why";
}  // namespace rejudge_key

const KeptRecord* kept_for(const KeptOutputs& kept, const std::string& runtime, const std::string& profile) {
  for (const auto& r : kept.records) {
    if (r.runtime == runtime && r.profile == profile) return &r;
  }
  return nullptr;
}

const KeptCase* kept_case(const KeptRecord* record, const std::string& name) {
  if (record == nullptr) return nullptr;
  for (const auto& c : record->cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// What a case's verdict is: its outcome and its errors.
json verdict(const RecordCase& c) {
  json v = c.to_json();
  namespace ck = rf::case_key;
  return json{{ck::kOutcome, v[ck::kOutcome]}, {ck::kMaxAbsError, v[ck::kMaxAbsError]}, {ck::kMaxRelError, v[ck::kMaxRelError]}};
}

json outcome_of(const Record& record) {
  return json{{rejudge_key::kStatus, std::string(record_status_name(record.status))},
              {rejudge_key::kFailure, record.failure ? json(std::string(failure_name(*record.failure))) : json()}};
}

// Which tolerance judged a record, and why.
std::string tolerance_why(const RejudgeRequest& request) {
  if (request.rtol && request.atol) return "--rtol and --atol as asked";
  if (request.rtol) return "--rtol as asked, the record's own atol";
  if (request.atol) return "--atol as asked, the record's own rtol";
  return "the record's own rtol and atol";
}

struct Rejudged {
  json entry;
  std::vector<std::string> changes;
  json record;  // the re-judged record, for the exit code only (never written)
};

// One record: each kept case compared again; parity's outcome and the record's derived again when it ran.
Rejudged rejudge_record(const json& input, const RejudgeRequest& request) {
  Record record = Record::from_json(input);
  const json before = outcome_of(record);
  const std::string runtime = run_name_of(record);  // as the kept record names it (record/run_name.h)
  const KeptRecord* kept = kept_for(request.kept, runtime, record.profile);
  const Tolerance own = record.tolerances.judging();  // a precision's own (base/precision.h), else rtol and atol
  const Tolerance tolerance{request.rtol.value_or(own.rtol), request.atol.value_or(own.atol)};
  const StageStatus parity = record.stage(Stage::parity).status;
  const bool parity_ran = parity == StageStatus::passed || parity == StageStatus::failed;
  Rejudged out;
  json cases = json::array();
  CaseEvidence evidence;
  std::size_t compared = 0;
  for (RecordCase& c : record.input_cases) {
    json entry{{rejudge_key::kCase, c.name}, {rejudge_key::kBefore, verdict(c)}};
    const KeptCase* k = parity_ran ? kept_case(kept, c.name) : nullptr;
    if (k == nullptr) {
      entry[rejudge_key::kRejudged] = false;
      entry[rejudge_key::kWhy] = !parity_ran ? "parity did not run"
                         : c.outcome && *c.outcome != rf::kOutcomeMatch && *c.outcome != rf::kOutcomeMismatch
                             ? "its outputs were not compared (" + *c.outcome + "): nothing to re-judge"
                             : std::string("no outputs were kept for it");
      entry[rejudge_key::kAfter] = entry[rejudge_key::kBefore];
      cases.push_back(std::move(entry));
      continue;
    }
    const std::string was = c.outcome.value_or("");
    c.reset();
    compare_case_outputs(c, k->outputs, k->references, k->oracle, tolerance, evidence);
    ++compared;
    entry[rejudge_key::kRejudged] = true;
    entry[rejudge_key::kAfter] = verdict(c);
    entry[rejudge_key::kChanged] = c.outcome.value_or("") != was;
    if (c.outcome.value_or("") != was) {
      out.changes.push_back("onnxruntime " + runtime + "  " + record.profile + " case " + c.name + ": " + was +
                            " -> " + c.outcome.value_or("") + " (max_abs_error " +
                            entry[rejudge_key::kAfter][rf::case_key::kMaxAbsError].dump() + ")");
    }
    cases.push_back(std::move(entry));
  }
  if (parity_ran && compared > 0) {
    record_parity_stage(record, json::object(), compared,
                        {false, evidence.runtime_departs, evidence.reference_departs});
    record.finalize();
  }
  json judged_by{{rejudge_key::kRtol, tolerance.rtol}, {rejudge_key::kAtol, tolerance.atol}, {rejudge_key::kWhy, tolerance_why(request)}};
  if (!evidence.dtype_tolerances.empty()) judged_by[rf::dtype_tolerance_key::kDtypeTolerances] = evidence.dtype_tolerances;
  out.entry = json{{rejudge_key::kRuntime, runtime},
                   {rejudge_key::kProfile, record.profile},
                   {rejudge_key::kTolerance, std::move(judged_by)},
                   {rejudge_key::kBefore, before},
                   {rejudge_key::kAfter, outcome_of(record)},
                   {rejudge_key::kCases, std::move(cases)}};
  out.record = record.to_json();
  return out;
}

}  // namespace

RejudgeOutcome rejudge(const RejudgeRequest& request) {
  RejudgeOutcome outcome;
  json records = json::array();
  std::vector<json> rejudged;
  for (const json& input : request.records) {
    Rejudged one = rejudge_record(input, request);
    records.push_back(std::move(one.entry));
    rejudged.push_back(std::move(one.record));
    for (auto& line : one.changes) outcome.changes.push_back(std::move(line));
  }
  outcome.exit_code = exit_code_for(rejudged);
  const bool passed = outcome.exit_code == kExitPassed;
  outcome.document = json{{rejudge_key::kFormat, kRejudgedFormat},
                          {rejudge_key::kDocument, request.document},
                          {rejudge_key::kTolerance, json{{rejudge_key::kRtol, request.rtol ? json(*request.rtol) : json()},
                                                 {rejudge_key::kAtol, request.atol ? json(*request.atol) : json()}}},
                          {rejudge_key::kStatus, passed ? rf::kPassed : rf::kFailed},
                          {rejudge_key::kExitCode, outcome.exit_code},
                          {rejudge_key::kChanged, outcome.changes.size()},
                          {rejudge_key::kRecords, std::move(records)}};
  return outcome;
}

}  // namespace nnx
