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
namespace rejudged_key {
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
}  // namespace rejudged_key

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
  return json{{rejudged_key::kStatus, std::string(record_status_name(record.status))},
              {rejudged_key::kFailure, record.failure ? json(std::string(failure_name(*record.failure))) : json()}};
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
  const Tolerance tolerance{request.rtol.value_or(record.tolerances.rtol.value()),
                            request.atol.value_or(record.tolerances.atol.value())};
  const StageStatus parity = record.stage(Stage::parity).status;
  const bool parity_ran = parity == StageStatus::passed || parity == StageStatus::failed;
  Rejudged out;
  json cases = json::array();
  CaseEvidence evidence;
  std::size_t compared = 0;
  for (RecordCase& c : record.input_cases) {
    json entry{{rejudged_key::kCase, c.name}, {rejudged_key::kBefore, verdict(c)}};
    const KeptCase* k = parity_ran ? kept_case(kept, c.name) : nullptr;
    if (k == nullptr) {
      entry[rejudged_key::kRejudged] = false;
      entry[rejudged_key::kWhy] = !parity_ran ? "parity did not run"
                         : c.outcome && *c.outcome != rf::kOutcomeMatch && *c.outcome != rf::kOutcomeMismatch
                             ? "its outputs were not compared (" + *c.outcome + "): nothing to re-judge"
                             : std::string("no outputs were kept for it");
      entry[rejudged_key::kAfter] = entry[rejudged_key::kBefore];
      cases.push_back(std::move(entry));
      continue;
    }
    const std::string was = c.outcome.value_or("");
    c.reset();
    compare_case_outputs(c, k->outputs, k->references, k->oracle, tolerance, evidence);
    ++compared;
    entry[rejudged_key::kRejudged] = true;
    entry[rejudged_key::kAfter] = verdict(c);
    entry[rejudged_key::kChanged] = c.outcome.value_or("") != was;
    if (c.outcome.value_or("") != was) {
      out.changes.push_back("onnxruntime " + runtime + "  " + record.profile + " case " + c.name + ": " + was +
                            " -> " + c.outcome.value_or("") + " (max_abs_error " +
                            entry[rejudged_key::kAfter][rf::case_key::kMaxAbsError].dump() + ")");
    }
    cases.push_back(std::move(entry));
  }
  if (parity_ran && compared > 0) {
    record_parity_stage(record, json::object(), compared,
                        {false, evidence.runtime_departs, evidence.reference_departs});
    record.finalize();
  }
  json judged_by{{rejudged_key::kRtol, tolerance.rtol}, {rejudged_key::kAtol, tolerance.atol}, {rejudged_key::kWhy, tolerance_why(request)}};
  if (!evidence.dtype_tolerances.empty()) judged_by[rf::dtype_tolerance_key::kDtypeTolerances] = evidence.dtype_tolerances;
  out.entry = json{{rejudged_key::kRuntime, runtime},
                   {rejudged_key::kProfile, record.profile},
                   {rejudged_key::kTolerance, std::move(judged_by)},
                   {rejudged_key::kBefore, before},
                   {rejudged_key::kAfter, outcome_of(record)},
                   {rejudged_key::kCases, std::move(cases)}};
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
  outcome.document = json{{rejudged_key::kFormat, kRejudgedFormat},
                          {rejudged_key::kDocument, request.document},
                          {rejudged_key::kTolerance, json{{rejudged_key::kRtol, request.rtol ? json(*request.rtol) : json()},
                                                 {rejudged_key::kAtol, request.atol ? json(*request.atol) : json()}}},
                          {rejudged_key::kStatus, passed ? rf::kPassed : rf::kFailed},
                          {rejudged_key::kExitCode, outcome.exit_code},
                          {rejudged_key::kChanged, outcome.changes.size()},
                          {rejudged_key::kRecords, std::move(records)}};
  return outcome;
}

}  // namespace nnx
