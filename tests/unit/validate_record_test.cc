// validate_record (record-format §6) and the settings a record states (profile_rebuild.h).
//
// Each record here is built the way the engine builds one (tests/support/engine_record.h: blank_record,
// set_stage_passed / _failed for every stage that ran, cases filled as a parity run fills them,
// finalize_record); every refusal test breaks one rule of §6 and checks that the message names it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>
#include <thread>
#include <chrono>

#include "base/failure.h"
#include "base/json_python.h"
#include "profile/profile.h"
#include "record/profile_rebuild.h"
#include "record/record.h"
#include "record/validate_batch.h"
#include "record/validate_record.h"
#include "support/engine_record.h"

namespace nnx {
namespace {

using test_support::engine_record;
using test_support::joined;
using test_support::kModelSha;
using test_support::kWeightsSha;
using test_support::named_profile;

json passed_record(const std::string& name = kTorchscriptProfile) {
  return engine_record(named_profile(name), Stage::parity);
}

// The record recorded flat with every object's members in reverse key order, as a Python dict may hold them.
JsonTape reversed_tape(const json& value) {
  struct Writer {
    JsonTape tape;
    void write(const json& v) {
      if (v.is_object()) {
        const std::size_t slot = tape.open_object();
        std::vector<std::pair<const std::string*, const json*>> members;
        for (auto it = v.begin(); it != v.end(); ++it) members.emplace_back(&it.key(), &*it);
        for (auto it = members.rbegin(); it != members.rend(); ++it) {
          tape.string(*it->first);
          write(*it->second);
        }
        tape.close(slot, v.size());
      } else if (v.is_array()) {
        const std::size_t slot = tape.open_array();
        for (const auto& item : v) write(item);
        tape.close(slot, v.size());
      } else {
        write_scalar(v);
      }
    }
    void write_scalar(const json& v) {
      if (v.is_string()) return tape.string(v.get_ref<const std::string&>());
      if (v.is_boolean()) return tape.boolean(v.get<bool>());
      if (v.is_number_unsigned()) return tape.unsigned_integer(v.get<std::uint64_t>());
      if (v.is_number_integer()) return tape.integer(v.get<std::int64_t>());
      if (v.is_number_float()) return tape.number(v.get<double>());
      tape.null();
    }
  } writer;
  writer.write(value);
  return std::move(writer.tape);
}

// The rules read from a tape in another key order find the same problems, but for strict JSON, which a
// tape's writer refuses before (validate_record.h).
void expect_same_problems_in_place(const json& record, const std::vector<std::string>& problems) {
  std::vector<std::string> without_strict;
  for (const auto& p : problems) {
    if (p.rfind("not strict JSON", 0) != 0) without_strict.push_back(p);
  }
  const JsonTape tape = reversed_tape(record);
  EXPECT_EQ(record_problems(JsonView(tape)), without_strict);
}

void expect_accepted(const json& record) {
  const auto problems = record_problems(record);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  EXPECT_NO_THROW(validate_record(record));
  expect_same_problems_in_place(record, problems);
}

void expect_refused(const json& record, const std::string& substring) {
  const auto problems = record_problems(record);
  expect_same_problems_in_place(record, problems);
  bool named = false;
  for (const auto& p : problems) named = named || p.find(substring) != std::string::npos;
  EXPECT_TRUE(named) << "no problem names \"" << substring << "\"; problems:" << joined(problems);
  try {
    validate_record(record);
    ADD_FAILURE() << "validate_record accepted a record refused for \"" << substring << "\"";
  } catch (const ConformanceError& e) {
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

// A failed parity: batch-1 mismatched (compared), batch-7 refused although valid (input-contract).
json failed_parity_record() {
  json r = passed_record();
  json& mismatch = r["input_cases"][0];
  mismatch["outcome"] = "mismatch";
  mismatch["failure"] = "mismatch";
  mismatch["passed"] = false;
  mismatch["max_abs_error"] = 0.5;
  mismatch["max_rel_error"] = 2.0;
  json& refused = r["input_cases"][3];
  refused["outcome"] = "rejected";
  refused["failure"] = "input-contract";
  refused["passed"] = false;
  refused["max_abs_error"] = nullptr;
  refused["max_rel_error"] = nullptr;
  refused["detail"] = "refused as an invalid argument: static batch";
  set_stage_failed(r, Stage::parity, FailureClass::mismatch, json{{"failed_cases", {"batch-1", "batch-7"}}});
  finalize_record(r);
  return r;
}

json custom_profile_record() {
  Profile p;
  p.name = "feedfwd-static-1-5";
  p.dynamic_batch = false;
  p.batches = {1, 5};
  return engine_record(p, Stage::parity);
}

// ---- records the engine writes are accepted ------------------------------------------------------------

TEST(ValidateRecord, AcceptsAPassedRecordOfEachTestedProfile) {
  for (const auto& p : tested_profiles()) {
    SCOPED_TRACE(p.name);
    expect_accepted(passed_record(p.name));
  }
}

TEST(ValidateRecord, AcceptsFailedRecordsAsTheEngineWritesThem) {
  const Profile p = named_profile(kDynamoProfile);
  expect_accepted(engine_record(p, Stage::dependencies, FailureClass::missing_dependency));
  expect_accepted(engine_record(p, Stage::export_model, FailureClass::export_error));
  expect_accepted(engine_record(p, Stage::export_model, FailureClass::state_changed));
  expect_accepted(engine_record(p, Stage::check, FailureClass::checker_error));
  expect_accepted(engine_record(p, Stage::load, FailureClass::hash_mismatch));
  expect_accepted(engine_record(p, Stage::load, FailureClass::load_error));
  expect_accepted(failed_parity_record());
}

TEST(ValidateRecord, AcceptsARecordReadBackFromItsCanonicalText) {
  expect_accepted(parse_strict_json(dumps_canonical(passed_record())));
}

TEST(ValidateRecord, AcceptsACustomProfileThatRebuildsIntoItself) { expect_accepted(custom_profile_record()); }

// ---- shape of the record -------------------------------------------------------------------------------

TEST(ValidateRecord, RefusesAValueThatIsNotAnObject) {
  expect_refused(json::array(), "record: must be an object");
  expect_refused(json("record"), "record: must be an object");
}

TEST(ValidateRecord, RefusesAMissingTopLevelKey) {
  json r = passed_record();
  r.erase("versions");
  expect_refused(r, "record.versions: missing");
}

TEST(ValidateRecord, RefusesAnUnknownTopLevelKey) {
  json r = passed_record();
  r["notes"] = "extra";
  expect_refused(r, "record.notes: unknown key");
}

TEST(ValidateRecord, RefusesNonFiniteNumbersAnywhere) {
  json r = passed_record();
  r["tolerances"]["rtol"] = std::numeric_limits<double>::quiet_NaN();
  expect_refused(r, "not strict JSON: record.tolerances.rtol is NaN");
  json s = passed_record();
  s["stages"]["load"]["detail"]["seconds"] = std::numeric_limits<double>::infinity();
  expect_refused(s, "not strict JSON: record.stages.load.detail.seconds is Infinity");
}

TEST(ValidateRecord, RefusesAValueThatDoesNotSurviveACanonicalRoundTrip) {
  json r = passed_record();
  r["source"]["revision"] = std::string("\xff\xfe");
  expect_refused(r, "not strict JSON");
}

TEST(ValidateRecord, RefusesAValueNestedDeeperThanTheWriterWrites) {
  json r = passed_record();
  json deep = "leaf";
  for (int i = 0; i < 130; ++i) deep = json::array({deep});
  r["versions"]["deep"] = deep;
  expect_refused(r, "not strict JSON: value nested deeper than 128 levels");
}

TEST(ValidationQueue, GivesEachRecordItsOwnProblemsByIndexWithAndWithoutWorkers) {
  std::vector<json> records;
  for (int i = 0; i < 300; ++i) {
    json r = passed_record(i % 2 ? kDynamoProfile : kTorchscriptProfile);
    if (i % 5 == 1) r["input_cases"][0]["seed"] = -i;
    if (i % 9 == 4) r["level"] = "none";
    records.push_back(r);
  }
  for (unsigned workers : {0u, 1u, 3u}) {
    ValidationQueue queue(records.size(), workers, /*capacity=*/16);
    for (std::size_t i = records.size(); i-- > 0;) queue.push(i, JsonTape::from_json(records[i]));  // any order
    const auto found = queue.finish();
    ASSERT_EQ(found.size(), records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      EXPECT_EQ(found[i], record_problems(records[i])) << "record " << i << " with " << workers << " workers";
      EXPECT_EQ(found[i].empty(), i % 5 != 1 && i % 9 != 4) << i;
    }
  }
}

std::size_t threads_of_this_process() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(ValidationQueue, GivenUpHalfWayLeavesNoThreadRunning) {
  const std::size_t before = threads_of_this_process();
  auto queue = std::make_unique<ValidationQueue>(100, 2, 4);
  EXPECT_EQ(threads_of_this_process(), before + 2);
  for (std::size_t i = 0; i < 50; ++i) queue->push(i, JsonTape::from_json(passed_record()));
  queue.reset();  // as when a later record is refused: joined, nothing left running or waiting
  // A joined thread has returned, but the kernel may list it in /proc/self/task a moment longer while it
  // reaps it: wait for that (a thread still running would stay listed and fail below).
  for (int i = 0; i < 200 && threads_of_this_process() != before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(threads_of_this_process(), before);
}

TEST(ValidateRecord, RefusesAnotherFormat) {
  json r = passed_record();
  r["format"] = "nnx.export-conformance/2";
  expect_refused(r, "format: must be \"nnx.export-conformance/1\"");
}

TEST(ValidateRecord, RefusesSectionsThatAreNotObjects) {
  for (const char* key : {"source", "versions", "exporter", "opset", "runtime", "config"}) {
    SCOPED_TRACE(key);
    json r = passed_record();
    r[key] = json::array();
    expect_refused(r, std::string(key) + ": must be an object");
  }
}

TEST(ValidateRecord, RefusesOtherKeysInRuntimeExporterAndOpset) {
  json a = passed_record();
  a["runtime"]["threads"] = 1;
  expect_refused(a, "runtime.threads: unknown key");
  json b = passed_record();
  b["exporter"]["warnings"] = json::array();
  expect_refused(b, "exporter.warnings: unknown key");
  json c = passed_record();
  c["opset"].erase("model");
  expect_refused(c, "opset.model: missing");
}

// ---- stages, status, failure, level --------------------------------------------------------------------

TEST(ValidateRecord, RefusesASixthStage) {
  json r = passed_record();
  r["stages"]["report"] = {{"status", "not_run"}, {"failure", nullptr}, {"detail", nullptr}};
  expect_refused(r, "stages.report: not one of the five stages");
}

TEST(ValidateRecord, RefusesAMissingStage) {
  json r = passed_record();
  r["stages"].erase("load");
  expect_refused(r, "stages.load: missing");
}

TEST(ValidateRecord, RefusesAStageWithOtherKeys) {
  json r = passed_record();
  r["stages"]["check"]["seconds"] = 1;
  expect_refused(r, "stages.check.seconds: unknown key");
}

TEST(ValidateRecord, RefusesAnUnknownStatus) {
  json r = passed_record();
  r["stages"]["parity"]["status"] = "skipped";
  expect_refused(r, "stages.parity.status: unknown status \"skipped\"");
  json s = passed_record();
  s["status"] = "ok";
  expect_refused(s, "status: unknown status \"ok\"");
}

TEST(ValidateRecord, RefusesAFailureClassOfAnotherStage) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::check, FailureClass::checker_error);
  r["stages"]["check"]["failure"] = "load-error";
  r["failure"] = "load-error";
  expect_refused(r, "stages.check.failure: \"load-error\" is a failure class of stage load, not check");
}

TEST(ValidateRecord, RefusesAnUnknownFailureClass) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::check, FailureClass::checker_error);
  r["stages"]["check"]["failure"] = "broken";
  r["failure"] = "broken";
  expect_refused(r, "stages.check.failure: unknown failure class \"broken\"");
  expect_refused(r, "failure: unknown failure class \"broken\"");
}

TEST(ValidateRecord, RefusesAFailureOnAStageThatDidNotFail) {
  json r = passed_record();
  r["stages"]["load"]["failure"] = "load-error";
  expect_refused(r, "stages.load.failure: \"load-error\" on a stage that did not fail");
}

TEST(ValidateRecord, RefusesAFailedStageWithoutAFailureClass) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::check, FailureClass::checker_error);
  r["stages"]["check"]["failure"] = nullptr;
  r["failure"] = nullptr;
  expect_refused(r, "stages.check: failed without a failure class");
}

TEST(ValidateRecord, RefusesAStageThatRanAfterAFailure) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::export_model, FailureClass::export_error);
  set_stage_passed(r, Stage::check, json::object());
  r["opset"]["model"] = {{"ai.onnx", 17}};
  r["artifacts"]["files"] =
      json::array({{{"path", "model.onnx"}, {"role", "model"}, {"bytes", 1}, {"sha256", kModelSha}}});
  finalize_record(r);
  expect_refused(r, "stages.check: ran after export did not pass");
}

TEST(ValidateRecord, RefusesAStageThatRanAfterOneThatDidNotRun) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::export_model);
  set_stage_failed(r, Stage::load, FailureClass::load_error, json::object());
  finalize_record(r);
  expect_refused(r, "stages.load: ran after check did not pass");
}

TEST(ValidateRecord, RefusesAStatusThatContradictsTheStages) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::load, FailureClass::load_error);
  r["status"] = "passed";
  expect_refused(r, "status: \"passed\" contradicts the stages");
}

TEST(ValidateRecord, RefusesAFailureThatContradictsTheStages) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::load, FailureClass::load_error);
  r["failure"] = "hash-mismatch";
  expect_refused(r, "failure: \"hash-mismatch\" contradicts the stages");
  json s = passed_record();
  s["failure"] = "mismatch";
  expect_refused(s, "failure: \"mismatch\" contradicts the stages");
  json t = engine_record(named_profile(kTorchscriptProfile), Stage::load, FailureClass::load_error);
  t["failure"] = nullptr;
  expect_refused(t, "failure: null contradicts the stages");
}

TEST(ValidateRecord, RefusesALevelThatContradictsTheStages) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::load, FailureClass::load_error);
  r["level"] = "executed";
  expect_refused(r, "level: \"executed\" contradicts the stages (they give \"structural\")");
  json s = passed_record();
  s["level"] = "full";
  expect_refused(s, "level: unknown level \"full\"");
}

// ---- input cases ---------------------------------------------------------------------------------------

TEST(ValidateRecord, RefusesARecordWithoutAMatchCase) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::load, FailureClass::load_error);
  json only = json::array({r["input_cases"].back()});
  r["input_cases"] = only;
  expect_refused(r, "input_cases: no valid (\"match\") case");
}

TEST(ValidateRecord, RefusesACaseWithOtherKeys) {
  json r = passed_record();
  r["input_cases"][1]["seconds"] = 0.5;
  expect_refused(r, "input_cases[1] (batch-2).seconds: unknown key");
  json s = passed_record();
  s["input_cases"][1].erase("detail");
  expect_refused(s, "input_cases[1] (batch-2).detail: missing");
}

TEST(ValidateRecord, RefusesABadCaseName) {
  json r = passed_record();
  r["input_cases"][0]["name"] = 7;
  expect_refused(r, "input_cases[0].name: must be a non-empty string");
}

TEST(ValidateRecord, RefusesBadSeeds) {
  const json bad_seeds = json::array({std::uint64_t{1} << 63, -1, 1001.0, true});
  for (const auto& seed : bad_seeds) {
    SCOPED_TRACE(seed.dump());
    json r = passed_record();
    r["input_cases"][0]["seed"] = seed;
    expect_refused(r, "input_cases[0] (batch-1).seed: " + seed.dump() + " is not an integer in [0, 2^63)");
  }
}

TEST(ValidateRecord, RefusesBadShapes) {
  const json bad_shapes = json::array({json::array({0, 4}), json::array({3}), json::array({1, 4, 1}),
                                       json::array({1, 65538}), json::array({4096, 4097}),
                                       json::array({"1", 4}), json::array({1.0, 4}), "1x4"});
  for (const auto& shape : bad_shapes) {
    SCOPED_TRACE(shape.dump());
    json r = passed_record();
    r["input_cases"][0]["shape"] = shape;
    expect_refused(r, "input_cases[0] (batch-1).shape: ");
  }
}

TEST(ValidateRecord, RefusesAnUnknownExpectation) {
  json r = passed_record();
  r["input_cases"][4]["expect"] = "refused";
  expect_refused(r, "input_cases[4] (width-5).expect: must be \"match\" or \"rejected\"");
}

TEST(ValidateRecord, RefusesAnOutcomeNoRunGives) {
  json r = passed_record();
  r["input_cases"][0]["outcome"] = "crashed";
  expect_refused(r, "input_cases[0] (batch-1).outcome: \"crashed\" is an outcome no run gives");
  json s = passed_record();
  s["input_cases"][4]["outcome"] = "match";
  s["input_cases"][4]["max_abs_error"] = 0.0;
  s["input_cases"][4]["max_rel_error"] = 0.0;
  s["input_cases"][4]["detail"] = nullptr;
  expect_refused(s, "input_cases[4] (width-5): outcome \"match\" is not an outcome any run gives for expect \"rejected\"");
}

TEST(ValidateRecord, RefusesAFailureThePairDoesNotGive) {
  json r = passed_record();
  json& c = r["input_cases"][2];
  c["outcome"] = "rejected";
  c["max_abs_error"] = nullptr;
  c["max_rel_error"] = nullptr;
  c["detail"] = "refused as an invalid argument";
  expect_refused(r, "input_cases[2] (batch-3): outcome \"rejected\" with failure null is not allowed for expect \"match\"");
}

TEST(ValidateRecord, RefusesAPassedFlagThatContradictsTheFailure) {
  json r = passed_record();
  r["input_cases"][1]["passed"] = false;
  expect_refused(r, "input_cases[1] (batch-2): passed false with failure null");
  json s = failed_parity_record();
  s["input_cases"][0]["passed"] = true;
  expect_refused(s, "input_cases[0] (batch-1): passed true with failure \"mismatch\"");
  json t = passed_record();
  t["input_cases"][1]["passed"] = 1;
  expect_refused(t, "input_cases[1] (batch-2).passed: must be a boolean");
}

TEST(ValidateRecord, RefusesACaseFailureClassOfAnotherStage) {
  json r = failed_parity_record();
  r["input_cases"][0]["failure"] = "load-error";
  expect_refused(r, "input_cases[0] (batch-1).failure: \"load-error\" is a failure class of stage load, not parity");
}

TEST(ValidateRecord, RefusesErrorsOnARejectedCase) {
  json r = passed_record();
  r["input_cases"][4]["max_abs_error"] = 0.0;
  expect_refused(r, "input_cases[4] (width-5): outcome \"rejected\" must carry null errors");
}

TEST(ValidateRecord, RefusesAComparedCaseWithoutErrorsOrWithADetail) {
  json r = passed_record();
  r["input_cases"][0]["max_rel_error"] = nullptr;
  expect_refused(r, "input_cases[0] (batch-1): compared outcome \"match\" must carry both max_abs_error and max_rel_error");
  json s = passed_record();
  s["input_cases"][0]["detail"] = "close enough";
  expect_refused(s, "input_cases[0] (batch-1): compared outcome \"match\" must carry a null detail");
}

TEST(ValidateRecord, RefusesAnUncomparedOutcomeWithoutADetail) {
  json r = passed_record();
  r["input_cases"][4]["detail"] = nullptr;
  expect_refused(r, "input_cases[4] (width-5): outcome \"rejected\" must carry a string detail");
  json s = passed_record();
  s["input_cases"][4]["detail"] = 3;
  expect_refused(s, "input_cases[4] (width-5).detail: must be null or a string");
}

TEST(ValidateRecord, AcceptsAMismatchWithoutNumbersWhenItsDetailSaysWhatDiffered) {
  json r = failed_parity_record();
  json& c = r["input_cases"][0];
  c["max_abs_error"] = nullptr;
  c["max_rel_error"] = nullptr;
  c["detail"] = "output shape [1, 3] differs from the native [1, 2]";
  expect_accepted(r);
}

TEST(ValidateRecord, RefusesBadErrorValues) {
  const json bad = json::array({-1.0, "0.1", true});
  for (const auto& v : bad) {
    SCOPED_TRACE(v.dump());
    json r = passed_record();
    r["input_cases"][0]["max_abs_error"] = v;
    expect_refused(r, "input_cases[0] (batch-1).max_abs_error: must be null or a finite number >= 0");
  }
}

TEST(ValidateRecord, RefusesOutcomesAlthoughParityDidNotRun) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::load, FailureClass::hash_mismatch);
  json& c = r["input_cases"][0];
  c["outcome"] = "match";
  c["passed"] = true;
  c["max_abs_error"] = 0.0;
  c["max_rel_error"] = 0.0;
  expect_refused(r, "input_cases[0] (batch-1): outcome \"match\" although parity did not run");
}

TEST(ValidateRecord, RefusesACaseWithoutAnOutcomeAlthoughParityRan) {
  json r = failed_parity_record();
  json& c = r["input_cases"][1];
  for (const char* k : {"outcome", "failure", "max_abs_error", "max_rel_error", "detail"}) c[k] = nullptr;
  c["passed"] = false;
  expect_refused(r, "input_cases[1] (batch-2): no outcome although parity ran");
}

TEST(ValidateRecord, RefusesAParityFailureThatIsNotTheFirstClassOfItsCases) {
  json r = failed_parity_record();
  r["stages"]["parity"]["failure"] = "input-contract";
  finalize_record(r);
  expect_refused(r, "stages.parity.failure: \"input-contract\" is not the first class named by its failing cases (\"mismatch\")");
}

TEST(ValidateRecord, RefusesAFailedParityWithoutAFailingCase) {
  json r = passed_record();
  set_stage_failed(r, Stage::parity, FailureClass::runtime_error, json::object());
  finalize_record(r);
  expect_refused(r, "stages.parity: failed with \"runtime-error\" but no input case failed");
}

TEST(ValidateRecord, RefusesAPassedParityWithACaseThatDidNotPass) {
  json r = failed_parity_record();
  set_stage_passed(r, Stage::parity, json::object());
  finalize_record(r);
  expect_refused(r, "stages.parity: passed although input_cases[0] (batch-1) did not pass");
}

// ---- model_state ---------------------------------------------------------------------------------------

TEST(ValidateRecord, RefusesNonBooleanModelStateParts) {
  json r = passed_record();
  r["model_state"]["parameters"] = 1;
  expect_refused(r, "model_state.parameters: must be a boolean");
  json s = passed_record();
  s["model_state"]["buffers"] = true;
  expect_refused(s, "model_state.buffers: unknown key");
  json t = passed_record();
  t["model_state"] = "unchanged";
  expect_refused(t, "model_state: must be null or an object");
}

TEST(ValidateRecord, RefusesAModelStateNotAllTrueAfterAPassedExport) {
  json r = passed_record();
  r["model_state"]["gradients"] = false;
  expect_refused(r, "model_state: not all true after a passed export (gradients changed)");
  json s = passed_record();
  s["model_state"] = nullptr;
  expect_refused(s, "model_state: null after a passed export");
}

TEST(ValidateRecord, RefusesAModelStateShowingNoChangeAfterStateChanged) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::export_model, FailureClass::state_changed);
  r["model_state"]["modes"] = true;
  expect_refused(r, "model_state: shows no change after state-changed");
  json s = engine_record(named_profile(kTorchscriptProfile), Stage::export_model, FailureClass::state_changed);
  s["model_state"] = nullptr;
  expect_refused(s, "model_state: null after state-changed");
}

TEST(ValidateRecord, RefusesAModelStateShowingAChangeAfterAnotherExportFailure) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::export_model, FailureClass::export_error);
  r["model_state"] = {{"parameters", false}, {"gradients", true}, {"modes", true}};
  expect_refused(r, "model_state: shows a change (parameters) after \"export-error\"");
  r["model_state"]["parameters"] = true;  // no model.onnx written: compared, unchanged
  expect_accepted(r);
}

TEST(ValidateRecord, RefusesAModelStateWhenTheExportDidNotRun) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::dependencies, FailureClass::missing_dependency);
  r["model_state"] = {{"parameters", true}, {"gradients", true}, {"modes", true}};
  expect_refused(r, "model_state: present although the export did not run");
}

// ---- artifacts and opset -------------------------------------------------------------------------------

json with_file(json record, json entry) {
  record["artifacts"]["files"].push_back(std::move(entry));
  return record;
}

json sidecar(const std::string& path) {
  return json{{"path", path}, {"role", "sidecar"}, {"bytes", 10}, {"sha256", kModelSha}};
}

TEST(ValidateRecord, AcceptsSidecarsAndExternalData) {
  json r = with_file(passed_record(), sidecar("notes/readme.txt"));
  json data = sidecar("model.onnx.data");
  data["role"] = "external-data";
  expect_accepted(with_file(r, data));
}

TEST(ValidateRecord, RefusesUnknownArtifactKeys) {
  json r = passed_record();
  r["artifacts"]["root"] = "/tmp";
  expect_refused(r, "artifacts.root: unknown key");
  json s = passed_record();
  s["artifacts"]["files"][0]["mtime"] = 0;
  expect_refused(s, "artifacts.files[0].mtime: unknown key");
}

TEST(ValidateRecord, RefusesArtifactPathsOutsideTheRule) {
  expect_refused(with_file(passed_record(), sidecar("../x")),
                 "artifacts.files[1].path: \"../x\" is not a valid artifact path (leaves the profile folder)");
  expect_refused(with_file(passed_record(), sidecar("a\\b")), "artifacts.files[1].path: \"a\\\\b\" is not a valid artifact path");
  expect_refused(with_file(passed_record(), sidecar("/etc/passwd")), "artifacts.files[1].path: \"/etc/passwd\" is not a valid");
  expect_refused(with_file(passed_record(), sidecar("c:x")), "artifacts.files[1].path: \"c:x\" is not a valid");
  expect_refused(with_file(passed_record(), sidecar("a/..")), "artifacts.files[1].path: \"a/..\" is not a valid");
  expect_refused(with_file(passed_record(), sidecar("")), "artifacts.files[1].path: \"\" is not a valid");
}

TEST(ValidateRecord, RefusesAPathListedTwiceAfterNormalisation) {
  const json r = with_file(with_file(passed_record(), sidecar("a/b")), sidecar("a/./b"));
  expect_refused(r, "artifacts.files[2].path: \"a/./b\" names the same file as artifacts.files[1] (\"a/b\")");
}

TEST(ValidateRecord, RefusesABadHash) {
  json r = passed_record();
  r["artifacts"]["files"][0]["sha256"] = std::string(64, 'B');
  expect_refused(r, "artifacts.files[0].sha256: \"" + std::string(64, 'B') + "\" is not 64 lowercase hex digits");
  json s = passed_record();
  s["artifacts"]["files"][0]["sha256"] = std::string(63, 'b');
  expect_refused(s, "artifacts.files[0].sha256:");
}

TEST(ValidateRecord, RefusesAnUnknownRole) {
  json entry = sidecar("extra.bin");
  entry["role"] = "weights";
  expect_refused(with_file(passed_record(), entry), "artifacts.files[1].role: unknown role \"weights\"");
}

TEST(ValidateRecord, RefusesABadSize) {
  for (const json& bytes : {json(-1), json(1.5), json("10"), json(true)}) {
    SCOPED_TRACE(bytes.dump());
    json r = passed_record();
    r["artifacts"]["files"][0]["bytes"] = bytes;
    expect_refused(r, "artifacts.files[0].bytes: must be a non-negative integer");
  }
}

TEST(ValidateRecord, RefusesACheckedRecordWithoutItsModelEntry) {
  json r = passed_record();
  r["artifacts"]["files"] = json::array();
  expect_refused(r, "artifacts.files: a checked record must list exactly one model entry (\"model.onnx\"), found 0");
  json s = passed_record();
  s["artifacts"]["files"][0]["role"] = "sidecar";
  expect_refused(s, "found 0");
}

TEST(ValidateRecord, RefusesAModelEntryThatIsNotTheModelFile) {
  json entry = sidecar("other.onnx");
  entry["role"] = "model";
  const json r = with_file(passed_record(), entry);
  expect_refused(r, "artifacts.files[1]: role \"model\" but path \"other.onnx\" is not artifacts.model");
  expect_refused(r, "found 2");
}

TEST(ValidateRecord, RefusesACheckedRecordWithoutItsOpset) {
  json r = passed_record();
  r["opset"]["model"] = nullptr;
  expect_refused(r, "opset.model: a checked record must state the model's opset");
  json s = passed_record();
  s["opset"]["model"] = json::object();
  expect_refused(s, "opset.model: a checked record must state the model's opset");
  json t = passed_record();
  t["opset"]["model"]["ai.onnx"] = "17";
  expect_refused(t, "opset.model.ai.onnx: must be an integer version");
}

TEST(ValidateRecord, RefusesAModelOpsetBeforeCheckPassed) {
  json r = engine_record(named_profile(kTorchscriptProfile), Stage::check, FailureClass::checker_error);
  r["opset"]["model"] = {{"ai.onnx", 17}};
  expect_refused(r, "opset.model: must be null until check passed");
}

TEST(ValidateRecord, RefusesAnArtifactsModelOtherThanModelOnnx) {
  json r = passed_record();
  r["artifacts"]["model"] = "net.onnx";
  expect_refused(r, "artifacts.model: must be \"model.onnx\", not \"net.onnx\"");
}

// ---- tolerances, config, runtime, exporter, opset ------------------------------------------------------

TEST(ValidateRecord, RefusesToleranceKeysOtherThanRtolAndAtol) {
  json r = passed_record();
  r["tolerances"]["max_ulp"] = 4;
  expect_refused(r, "tolerances.max_ulp: unknown key");
  json s = passed_record();
  s["tolerances"].erase("atol");
  expect_refused(s, "tolerances.atol: missing");
}

TEST(ValidateRecord, RefusesNegativeOrNonNumericTolerances) {
  json r = passed_record();
  r["tolerances"]["atol"] = -1e-5;
  expect_refused(r, "tolerances.atol: must be a finite number >= 0");
  json s = passed_record();
  s["tolerances"]["rtol"] = "1e-4";
  expect_refused(s, "tolerances.rtol: must be a finite number >= 0");
}

TEST(ValidateRecord, RefusesASubnormalToleranceWhoseMarginsCannotBeComputed) {
  json r = passed_record();
  r["tolerances"]["rtol"] = 5e-324;
  expect_refused(r, "tolerances.rtol: must be 0 or at least 1.1754943508222875e-38 (float32's smallest normal "
                    "number), not 5e-324");
}

TEST(ValidateRecord, RefusesAConfigWithoutWeightsSha256) {
  json r = passed_record();
  r["config"].erase("weights_sha256");
  expect_refused(r, "config.weights_sha256: missing");
  json s = passed_record();
  s["config"]["weights_sha256"] = "abc";
  expect_refused(s, "config.weights_sha256: \"abc\" is not 64 lowercase hex digits");
}

TEST(ValidateRecord, RefusesOtherSessionOptions) {
  json r = passed_record();
  r["runtime"]["session"]["intra_op_num_threads"] = 4;
  expect_refused(r, "runtime.session: other session options");
  json s = passed_record();
  s["runtime"]["session"]["inter_op_num_threads"] = 1.0;
  expect_refused(s, "runtime.session: other session options");
  json t = passed_record();
  t["runtime"]["session"]["execution_mode"] = "ORT_SEQUENTIAL";
  expect_refused(t, "runtime.session: other session options");
}

TEST(ValidateRecord, RefusesAnExporterNameUnlikeItsOptions) {
  json r = passed_record();
  r["exporter"]["name"] = "dynamo";
  expect_refused(r, "exporter.name: \"dynamo\" is unlike exporter.options.exporter \"torchscript\"");
}

TEST(ValidateRecord, RefusesARequestedOpsetThatIsNotTheOptionsInteger) {
  json r = passed_record();
  r["opset"]["requested"] = 17.0;
  expect_refused(r, "opset.requested: must be an integer, not 17.0");
  json s = passed_record();
  s["opset"]["requested"] = 18;
  expect_refused(s, "opset.requested: 18 is not the options' integer opset_version (17)");
}

// ---- settings ------------------------------------------------------------------------------------------

TEST(RecordSettings, AreTheProfileSettingsForARecordTheEngineWrote) {
  for (const auto& p : tested_profiles()) {
    EXPECT_EQ(dumps_canonical(record_settings(passed_record(p.name))), p.canonical_settings_text());
  }
  Profile custom;
  custom.name = "feedfwd-static-1-5";
  custom.dynamic_batch = false;
  custom.batches = {1, 5};
  EXPECT_EQ(dumps_canonical(record_settings(custom_profile_record())), custom.canonical_settings_text());
}

TEST(RecordSettings, KeepExporterOptionsAsGiven) {
  json r = passed_record();
  r["exporter"]["options"]["opset_version"] = 17.0;
  r["exporter"]["options"]["dynamic_batch"] = 1;
  const std::string text = dumps_canonical(record_settings(r));
  EXPECT_NE(text.find("\"opset_version\": 17.0"), std::string::npos) << text;
  EXPECT_NE(text.find("\"dynamic_batch\": 1"), std::string::npos) << text;
}

TEST(RecordSettings, NeverThrowOnAMalformedRecord) {
  EXPECT_NO_THROW(record_settings(json::array()));
  json r = passed_record();
  r["tolerances"]["rtol"] = std::numeric_limits<double>::quiet_NaN();
  r["input_cases"] = 3;
  EXPECT_NO_THROW(record_settings(r));
  EXPECT_NO_THROW(record_problems(r));
}

TEST(ProfileFromRecord, RebuildsTheProfileTheRecordStates) {
  std::vector<std::string> problems;
  const Profile p = profile_from_record(custom_profile_record(), problems);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  EXPECT_EQ(p.name, "feedfwd-static-1-5");
  EXPECT_EQ(p.exporter, "torchscript");
  EXPECT_FALSE(p.dynamic_batch);
  EXPECT_EQ(p.batches, (std::vector<std::int64_t>{1, 5}));
  EXPECT_EQ(p.opset_version, 17);
  EXPECT_EQ(p.export_batch, 2);
  EXPECT_DOUBLE_EQ(p.rtol, 1e-4);
  EXPECT_EQ(p.provider, "CPUExecutionProvider");
  EXPECT_EQ(p.model.hidden_dims, (std::vector<std::int64_t>{8}));
}

TEST(ProfileFromRecord, NamesACaseListNoProfileProduces) {
  std::vector<std::string> problems;
  json r = custom_profile_record();
  std::swap(r["input_cases"][0], r["input_cases"][2]);
  profile_from_record(r, problems);
  EXPECT_FALSE(problems.empty());
  EXPECT_NE(joined(problems).find("is not what a profile produces here"), std::string::npos) << joined(problems);
}

TEST(ProfileFromRecord, NamesWrongTypes) {
  std::vector<std::string> problems;
  json r = custom_profile_record();
  r["exporter"]["options"]["export_batch"] = "2";
  r["config"]["hidden_dims"] = 8;
  profile_from_record(r, problems);
  const std::string all = joined(problems);
  EXPECT_NE(all.find("exporter.options.export_batch: must be an integer"), std::string::npos) << all;
  EXPECT_NE(all.find("config.hidden_dims"), std::string::npos) << all;
}

TEST(ValidateRecord, RefusesATestedProfileWithAnEditedTolerance) {
  json r = passed_record();
  r["tolerances"]["rtol"] = 1e-3;
  expect_refused(r, "settings differ from the tested profile \"feedfwd-fp32-torchscript\" at tolerances.rtol: 0.001, expected 0.0001");
}

TEST(ValidateRecord, RefusesATestedProfileWithAnEditedSeed) {
  json r = passed_record(kDynamoProfile);
  r["input_cases"][3]["seed"] = 1008;
  expect_refused(r, "settings differ from the tested profile \"feedfwd-fp32-dynamo\" at input cases[3].seed: 1008, expected 1007");
}

TEST(ValidateRecord, RefusesATestedProfileAtOpset18) {
  json r = passed_record();
  r["exporter"]["options"]["opset_version"] = 18;
  r["opset"]["requested"] = 18;
  expect_refused(r, "at exporter options.opset_version: 18, expected 17");
}

TEST(ValidateRecord, RefusesATestedProfileExportedAtBatch3) {
  json r = passed_record();
  r["exporter"]["options"]["export_batch"] = 3;
  expect_refused(r, "at exporter options.export_batch: 3, expected 2");
}

TEST(ValidateRecord, RefusesATestedNameWithAnotherProfilesSettings) {
  Profile p = named_profile(kDynamoProfile);
  p.name = kTorchscriptProfile;
  expect_refused(engine_record(p, Stage::parity), "at exporter options.exporter: \"dynamo\", expected \"torchscript\"");
}

TEST(ValidateRecord, RefusesExporterOptionsAsAnotherJsonType) {
  json r = passed_record();
  r["exporter"]["options"]["dynamic_batch"] = 1;
  expect_refused(r, "at exporter options.dynamic_batch: 1, expected true");
  json s = custom_profile_record();
  s["exporter"]["options"]["opset_version"] = 17.0;
  expect_refused(s, "exporter.options.opset_version: must be an integer");
}

TEST(ValidateRecord, RefusesACustomRecordWithASeedNoProfileGives) {
  json r = custom_profile_record();
  r["input_cases"][1]["seed"] = 1006;
  expect_refused(r, "settings: do not rebuild into a valid profile");
  expect_refused(r, "input_cases[1] (batch-5).seed: 1006 is not what a profile produces here (1005)");
}

TEST(ValidateRecord, RefusesACustomRecordWithAnArtifactDirectoryOtherThanItsName) {
  json r = custom_profile_record();
  r["artifacts"]["directory"] = "elsewhere";
  expect_refused(r, "settings differ from the rebuilt profile \"feedfwd-static-1-5\" at artifact directory: \"elsewhere\", expected \"feedfwd-static-1-5\"");
}

TEST(ValidateRecord, RefusesACustomRecordWithExporterOptionsNoProfileWrites) {
  json r = custom_profile_record();
  r["exporter"]["options"]["input_names"] = {"x"};
  expect_refused(r, "exporter.options.input_names: must be [\"features\"]");
  json s = custom_profile_record();
  s["exporter"]["options"]["dynamo"] = true;
  expect_refused(s, "exporter.options.dynamo: true although the exporter is \"torchscript\"");
  json t = custom_profile_record();
  t["exporter"]["options"]["verbose"] = false;
  expect_refused(t, "exporter.options.verbose: unknown key");
}

TEST(ValidateRecord, RefusesACustomRecordThatRebuildsIntoAnInvalidProfile) {
  json r = custom_profile_record();
  r["profile"] = "bad/name";
  r["artifacts"]["directory"] = "bad/name";
  expect_refused(r, "is not a plain name");
  json s = custom_profile_record();
  s["runtime"]["provider"] = "";
  expect_refused(s, "settings: provider must be a non-empty string");
  json t = custom_profile_record();
  t["dtype"] = "float16";
  expect_refused(t, "settings: dtype must be \"float32\"");
}

TEST(ValidateRecord, NamesEveryProblemInOneMessage) {
  json r = passed_record();
  r["format"] = "other";
  r["artifacts"]["model"] = "net.onnx";
  try {
    validate_record(r);
    FAIL() << "accepted";
  } catch (const ConformanceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("format: must be"), std::string::npos) << message;
    EXPECT_NE(message.find("artifacts.model: must be"), std::string::npos) << message;
    EXPECT_NE(message.find("2 problems"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace nnx
