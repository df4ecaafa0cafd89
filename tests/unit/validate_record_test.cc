// validate_record (record-format §6): records the engine writes are accepted; the record's shape, its stages,
// status, failure and level. The cases are validate_record_cases_test.cc; artifacts, tolerances and the settings a
// record states (profile_rebuild.h) validate_record_settings_test.cc.
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
#include "support/record_expectations.h"


namespace nnx {
namespace {

// The record builders and expectations of tests/support/ (engine_record.h, record_expectations.h).
using namespace test_support;

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

}  // namespace
}  // namespace nnx
