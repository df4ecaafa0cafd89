// validate_record (record-format §6): the input cases and the model state a record states.
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

#include "base/failure.h"
#include "base/json_python.h"
#include "profile/profile.h"
#include "record/profile_rebuild.h"
#include "record/record.h"
#include "record/validate_record.h"
#include "support/engine_record.h"
#include "support/record_expectations.h"


namespace nnx {
namespace {

// The record builders and expectations of tests/support/ (engine_record.h, record_expectations.h).
using namespace test_support;

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

// A v1 profile's batches are kept as given (§3): batches [2, 2] make two cases "batch-2", and the
// triangulation's k-th entry of a name is the k-th compared case of that name (validate_triangulation.cc).
TEST(ValidateRecord, AcceptsATriangulationOfTwoCasesOfOneNameAndRefusesAThirdEntry) {
  Profile p = named_profile("twice");
  p.feed_forward().batches = {2, 2};
  json r = engine_record(p, Stage::parity);
  const json entry{{"case", "batch-2"}, {"margin", 0.5}};
  r["stages"]["parity"]["detail"]["triangulation"] = json::array({entry, entry});
  expect_accepted(r);
  r["stages"]["parity"]["detail"]["triangulation"].push_back(entry);
  expect_refused(r, "triangulation[2]: triangulates input_cases[1] (batch-2) a second time");
}

}  // namespace
}  // namespace nnx
