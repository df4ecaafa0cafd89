// validate_record (record-format §6): artifacts and opset, tolerances, config, runtime and exporter, and the
// settings a record states (profile_rebuild.h).
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
  custom.feed_forward().dynamic_batch = false;
  custom.feed_forward().batches = {1, 5};
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
  EXPECT_FALSE(p.feed_forward().dynamic_batch);
  EXPECT_EQ(p.feed_forward().batches, (std::vector<std::int64_t>{1, 5}));
  EXPECT_EQ(p.opset_version, 17);
  EXPECT_EQ(p.feed_forward().export_batch, 2);
  EXPECT_DOUBLE_EQ(p.rtol, 1e-4);
  EXPECT_EQ(p.provider, "CPUExecutionProvider");
  EXPECT_EQ(p.feed_forward().model.hidden_dims, (std::vector<std::int64_t>{8}));
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
