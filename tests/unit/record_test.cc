// The typed record (record.h) and the one status/failure/level rule (record_format.h).
//
//  * Round trip: for every valid record j, Record::from_json(j).to_json() is j again, number for number — on
//    the real records of the fuzz seed corpus, on records built the way the engine builds them (blank_record,
//    set_stage_*, finalize_record) for every outcome, and on records holding numbers a rule leaves open.
//  * One rule: for every combination of the five stages' statuses and classes, the writer (finalize_record,
//    Record::finalize) and the validator's summary check agree on status, failure and level.
//  * from_json refuses an invalid record, naming its problems.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "base/failure.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "profile/profile.h"
#include "record/record.h"
#include "record/record_format.h"
#include "record/validate_record.h"
#include "support/engine_record.h"
#include "support/files.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;

using test_support::engine_record;
using test_support::joined;
using test_support::kWeightsSha;
using test_support::read_file;

const fs::path kCorpus = test_support::source_path("fuzz/corpus/json_record_fuzzer");

// Same JSON value and kind: an integer is never a float, floats compare bit for bit (-0.0 is not 0.0).
bool same_json(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) return a.dump() == b.dump();
  if (a.type() != b.type()) return false;
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  if (a.is_object() || a.is_array()) {
    if (a.size() != b.size()) return false;
    if (a.is_array()) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!same_json(a[i], b[i])) return false;
      }
      return true;
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !same_json(*it, *other)) return false;
    }
    return true;
  }
  return a == b;
}

void expect_round_trip(const json& record, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(record_problems(record), std::vector<std::string>{});
  const json again = Record::from_json(record).to_json();
  EXPECT_EQ(dumps_canonical(again), dumps_canonical(record));
  EXPECT_TRUE(same_json(again, record));
  EXPECT_EQ(again, record);
}

// The valid records of the fuzz seed corpus (a report's profiles count one by one).
std::vector<std::pair<std::string, json>> corpus_records() {
  std::vector<std::pair<std::string, json>> out;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    json value;
    try {
      value = parse_strict_json(read_file(entry.path()));
    } catch (const JsonError&) {
      continue;
    }
    const std::string name = entry.path().filename().string();
    const bool report = value.is_object() && value.contains("profiles") && value["profiles"].is_array();
    for (const auto& record : report ? value["profiles"] : json::array({value})) {
      if (record_problems(record).empty()) out.emplace_back(name, record);
    }
  }
  return out;
}

// ---- round trip -----------------------------------------------------------------------------------------

TEST(RecordRoundTrip, RealRecordsOfTheFuzzSeedCorpus) {
  const auto records = corpus_records();
  EXPECT_GE(records.size(), 7u) << "the corpus holds real records of every outcome";
  for (const auto& [name, record] : records) expect_round_trip(record, name);
}

TEST(RecordRoundTrip, RecordsTheEngineWritesForEveryOutcome) {
  for (const auto& p : tested_profiles()) {
    expect_round_trip(blank_record(p, SourceInfo{}, kWeightsSha), p.name + " blank");
    expect_round_trip(engine_record(p, Stage::parity), p.name + " passed");
    for (FailureClass f : kFailureClasses) {
      if (!is_v1_failure(f)) continue;  // a tested profile's record holds §1's classes only
      expect_round_trip(engine_record(p, failure_stage(f), f), p.name + " " + std::string(failure_name(f)));
    }
  }
}

TEST(RecordRoundTrip, KeepsNumbersAndFreeFormPartsAsGiven) {
  Profile custom;
  custom.name = "feedfwd-custom";
  json r = engine_record(custom, Stage::parity);
  r["tolerances"]["atol"] = 0;                                // an integer tolerance stays an integer
  r["input_cases"][0]["max_abs_error"] = 0;                   // so does an integer error
  r["input_cases"][1]["max_rel_error"] = -0.0;                // and -0.0 stays negative
  r["artifacts"]["files"][0]["bytes"] = 18446744073709551615ULL;
  r["runtime"]["version"] = json{{"unchecked", 1.0}};         // not validated: kept as given
  r["source"] = json{{"anything", json::array({1, 2.0, nullptr})}};
  r["stages"]["load"]["detail"] = json::array({17, 17.0});
  expect_round_trip(r, "custom");
  const Record typed = Record::from_json(r);
  EXPECT_TRUE(typed.tolerances.atol.to_json().is_number_integer());
  EXPECT_EQ(typed.tolerances.rtol.value(), 1e-4);
  EXPECT_EQ(typed.artifacts.files[0].bytes, 18446744073709551615ULL);
}

TEST(RecordRoundTrip, TypedMembersReadWhatTheRecordStates) {
  const Record r = Record::from_json(engine_record(*tested_profile(kDynamoProfile), Stage::load, FailureClass::load_error));
  EXPECT_EQ(r.profile, kDynamoProfile);
  EXPECT_EQ(r.status, RecordStatus::failed);
  EXPECT_EQ(r.failure, FailureClass::load_error);
  EXPECT_EQ(r.level, Level::structural);
  EXPECT_EQ(r.stage(Stage::load).status, StageStatus::failed);
  EXPECT_EQ(r.stage(Stage::parity).status, StageStatus::not_run);
  EXPECT_EQ(r.exporter.name, "dynamo");
  EXPECT_EQ(r.opset.requested, 17);
  EXPECT_EQ(r.artifacts.files.size(), 1u);
  EXPECT_EQ(r.artifacts.files[0].role, rf::kRoleModel);
  EXPECT_EQ(r.runtime.session.graph_optimization_level, "ORT_ENABLE_ALL");
  ASSERT_EQ(r.input_cases.size(), 5u);
  EXPECT_EQ(r.input_cases[4].name, "width-5");
  EXPECT_EQ(r.input_cases[4].seed, 2000u);
  EXPECT_FALSE(r.input_cases[0].outcome.has_value());
}

TEST(RecordTyped, TheTypedWriterWritesWhatTheJsonWriterWrites) {
  for (const auto& p : tested_profiles()) {
    SourceInfo source;
    source.origin = rf::kOriginGit;
    source.dirty = true;
    Record typed = blank_record_of(p, source, kWeightsSha);
    json plain = blank_record(p, source, kWeightsSha);
    EXPECT_TRUE(same_json(typed.to_json(), plain));
    typed.set_stage_passed(Stage::dependencies, json{{"onnx", "1.16.0"}});
    typed.set_stage_failed(Stage::export_model, FailureClass::export_error, json{{"error", "x"}});
    typed.finalize();
    set_stage_passed(plain, Stage::dependencies, json{{"onnx", "1.16.0"}});
    set_stage_failed(plain, Stage::export_model, FailureClass::export_error, json{{"error", "x"}});
    finalize_record(plain);
    EXPECT_TRUE(same_json(typed.to_json(), plain)) << dumps_canonical(typed.to_json());
    EXPECT_EQ(record_problems(plain), std::vector<std::string>{});
  }
}

TEST(RecordTyped, ResetsCasesAndStagesToBlank) {
  const Profile p = *tested_profile(kTorchscriptProfile);
  Record r = Record::from_json(engine_record(p, Stage::parity, FailureClass::mismatch));
  r.reset_input_cases();
  r.reset_stage(Stage::parity);
  r.finalize();
  const auto cases = p.input_cases();
  for (std::size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(r.input_cases[i].to_json(), blank_input_case(cases[i]));
  EXPECT_EQ(r.stage(Stage::parity).to_json(), (json{{"status", "not_run"}, {"failure", nullptr}, {"detail", nullptr}}));
  EXPECT_EQ(r.status, RecordStatus::failed);
  EXPECT_FALSE(r.failure.has_value());
  EXPECT_EQ(r.level, Level::structural);
  EXPECT_EQ(record_problems(r.to_json()), std::vector<std::string>{});
}

// ---- from_json refuses ----------------------------------------------------------------------------------

TEST(RecordFromJson, RefusesAnInvalidRecordNamingItsProblems) {
  json r = engine_record(*tested_profile(kTorchscriptProfile), Stage::parity);
  r["format"] = "other";
  r["artifacts"]["model"] = "net.onnx";
  try {
    Record::from_json(r);
    FAIL() << "accepted";
  } catch (const ConformanceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("format: must be"), std::string::npos) << message;
    EXPECT_NE(message.find("artifacts.model: must be"), std::string::npos) << message;
    EXPECT_NE(message.find("2 problems"), std::string::npos) << message;
  }
  EXPECT_THROW(Record::from_json(json::array()), ConformanceError);
  EXPECT_THROW(Record::from_json(json::object()), ConformanceError);
}

// ---- one rule -------------------------------------------------------------------------------------------

// Every state a stage can state: passed, not_run, or failed with each class of that stage.
std::vector<StageEntry> stage_states(Stage s) {
  std::vector<StageEntry> out = {{StageStatus::passed, std::nullopt, nullptr}, {StageStatus::not_run, std::nullopt, nullptr}};
  for (FailureClass f : kFailureClasses) {  // a v1 record's: §1's nine (a tool-error is a successor record's)
    if (failure_stage(f) == s && is_v1_failure(f)) out.push_back({StageStatus::failed, f, nullptr});
  }
  return out;
}

bool names(const std::vector<std::string>& problems, const std::string& prefix) {
  for (const auto& p : problems) {
    if (p.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(OneRule, WriterAndValidatorAgreeOnEveryCombinationOfStages) {
  const json base = engine_record(*tested_profile(kTorchscriptProfile), Stage::parity);
  std::array<std::vector<StageEntry>, kStageCount> states;
  std::size_t combinations = 1;
  for (Stage s : kStages) combinations *= (states[stage_index(s)] = stage_states(s)).size();
  ASSERT_EQ(combinations, 3u * 4u * 3u * 4u * 5u);
  for (std::size_t n = 0; n < combinations; ++n) {
    Record typed = Record::from_json(base);
    std::size_t k = n;
    for (Stage s : kStages) {
      const auto& options = states[stage_index(s)];
      typed.stage(s) = options[k % options.size()];
      k /= options.size();
    }
    json written = typed.to_json();
    finalize_record(written);
    typed.finalize();
    SCOPED_TRACE(dumps_canonical(written["stages"]));
    EXPECT_TRUE(same_json(typed.to_json(), written));

    // The rule as §1 and §5 state it, from the stages alone.
    std::optional<FailureClass> first;
    for (Stage s : kStages) {
      if (!first && typed.stage(s).status == StageStatus::failed) first = typed.stage(s).failure;
    }
    bool all_passed = true;
    for (Stage s : kStages) all_passed = all_passed && typed.stage(s).status == StageStatus::passed;
    EXPECT_EQ(written["status"], all_passed ? "passed" : "failed");
    EXPECT_EQ(written["failure"], first ? json(std::string(failure_name(*first))) : json(nullptr));
    EXPECT_EQ(written["level"], typed.stage(Stage::parity).status == StageStatus::passed ? "executed"
                                : typed.stage(Stage::check).status == StageStatus::passed ? "structural"
                                                                                          : "none");

    // The validator finds nothing to contradict in what the writer wrote...
    const auto problems = record_problems(written);
    EXPECT_FALSE(names(problems, "status:") || names(problems, "failure:") || names(problems, "level:"))
        << joined(problems);
    // ...and names each summary field the writer would not have written.
    json other_status = written;
    other_status["status"] = written["status"] == "passed" ? "failed" : "passed";
    EXPECT_TRUE(names(record_problems(other_status), "status: ")) << written["status"];
    json other_level = written;
    other_level["level"] = written["level"] == "none" ? "executed" : "none";
    EXPECT_TRUE(names(record_problems(other_level), "level: "));
    json other_failure = written;
    other_failure["failure"] = written["failure"].is_null() ? json("mismatch") : json(nullptr);
    EXPECT_TRUE(names(record_problems(other_failure), "failure: "));
  }
}

TEST(OneRule, DeriveOutcomeIsTheRuleOfTheSpec) {
  std::array<StageOutcome, kStageCount> stages;
  for (auto& s : stages) s.status = StageStatus::passed;
  RecordOutcome o = derive_outcome(stages);
  EXPECT_EQ(o.status, RecordStatus::passed);
  EXPECT_EQ(o.level, Level::executed);
  EXPECT_FALSE(o.failure.has_value());
  EXPECT_FALSE(o.first_failed.has_value());
  stages[stage_index(Stage::load)] = {StageStatus::failed, FailureClass::hash_mismatch};
  stages[stage_index(Stage::parity)] = {StageStatus::not_run, std::nullopt};
  o = derive_outcome(stages);
  EXPECT_EQ(o.status, RecordStatus::failed);
  EXPECT_EQ(o.level, Level::structural);
  EXPECT_EQ(o.failure, FailureClass::hash_mismatch);
  EXPECT_EQ(o.first_failed, Stage::load);
}

TEST(OneRule, AModuleRecordsLevelSaysWhatRanThoughParityFailed) {
  std::array<StageOutcome, kStageCount> stages;
  for (auto& s : stages) s.status = StageStatus::passed;
  stages[stage_index(Stage::parity)] = {StageStatus::failed, FailureClass::input_contract};
  EXPECT_EQ(derive_outcome(stages).level, Level::structural);  // §1: nothing says a case ran
  EXPECT_EQ(derive_outcome(stages, true).level, Level::executed);
  EXPECT_EQ(derive_outcome(stages, true).failure, FailureClass::input_contract);
  stages[stage_index(Stage::parity)] = {StageStatus::not_run, std::nullopt};
  EXPECT_EQ(derive_outcome(stages, true).level, Level::structural);  // parity did not run at all
  EXPECT_FALSE(level_counts_run_cases(RecordForm::brief));    // the tested profiles keep §1's level
  EXPECT_TRUE(level_counts_run_cases(RecordForm::named_tensors));
  EXPECT_EQ(model_kind_facts(ModelKind::feed_forward).form, RecordForm::brief);
  EXPECT_EQ(model_kind_facts(ModelKind::module).form, RecordForm::named_tensors);
  EXPECT_EQ(model_kind_facts(ModelKind::onnx_file).form, RecordForm::named_tensors);
  EXPECT_TRUE(runtime_returned_outputs("mismatch") && runtime_returned_outputs("accepted"));
  EXPECT_FALSE(runtime_returned_outputs("rejected") || runtime_returned_outputs("error"));
}

TEST(OneRule, TheCaseTableOfTheSpec) {
  EXPECT_EQ(case_rule("match", "match")->failure, std::nullopt);
  EXPECT_EQ(case_rule("mismatch", "match")->failure, FailureClass::mismatch);
  EXPECT_EQ(case_rule("rejected", "match")->failure, FailureClass::input_contract);
  EXPECT_EQ(case_rule("rejected", "rejected")->failure, std::nullopt);
  EXPECT_EQ(case_rule("accepted", "rejected")->failure, FailureClass::input_contract);
  EXPECT_EQ(case_rule("error", "match")->failure, FailureClass::runtime_error);
  EXPECT_EQ(case_rule("error", "rejected")->failure, FailureClass::runtime_error);
  EXPECT_EQ(case_rule("match", "rejected"), nullptr);
  EXPECT_EQ(case_rule("accepted", "match"), nullptr);
  EXPECT_EQ(case_rule("mismatch", "rejected"), nullptr);
}

TEST(OneRule, AToolErrorIsASuccessorRecordsClassRefusedInATestedRecord) {
  const json v1 = engine_record(*tested_profile(kTorchscriptProfile), Stage::export_model, FailureClass::tool_error);
  const auto problems = record_problems(v1);
  ASSERT_FALSE(problems.empty());
  EXPECT_TRUE(names(problems, "failure: \"tool-error\" is a successor-format class"));
}

}  // namespace
}  // namespace nnx
