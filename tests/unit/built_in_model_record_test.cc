// The built-in net's record in the successor format (base/built_in_model_record.h, doc/record-format.md §11
// kind "built-in"): the encoding both ways on a record the engine builds (tests/support/engine_record.h), the
// typed record's round trip, the format a record takes under its settings, and the validator's rules for it.
#include <gtest/gtest.h>

#include <string>

#include "base/built_in_model_record.h"
#include "record/record.h"
#include "record/validate_record.h"
#include "support/record_expectations.h"

namespace nnx {
namespace {

using namespace test_support;

// A tested profile's passed record as execute writes it under two intra-op threads.
json two_threads(json brief) {
  brief["runtime"]["session"]["intra_op_num_threads"] = 2;
  return built_in_model_record(brief);
}

TEST(BuiltInModelRecord, EncodesTheBriefsKeysAsNamedTensors) {
  const json brief = passed_record();
  const json record = built_in_model_record(brief);
  EXPECT_EQ(record["format"], "nnx.model-conformance/1");
  EXPECT_EQ(record["model"], (json{{"kind", "built-in"}, {"config", brief["config"]}, {"dtype", "float32"}}));
  EXPECT_FALSE(record.contains("config"));
  EXPECT_FALSE(record.contains("dtype"));
  EXPECT_EQ(record["inputs"], json::parse(R"([{"name": "features", "shape": ["batch", 4], "dtype": "float32",
                                                "range": null}])"));
  EXPECT_EQ(record["dims"], json::parse(R"({"batch": [2, 1, 3, 7]})"));
  EXPECT_EQ(record["outputs"], json::parse(R"(["logits"])"));
  const json& refused = record["input_cases"].back();
  EXPECT_EQ(refused["dims"], json::parse(R"({"batch": 3})"));
  EXPECT_EQ(refused["inputs"][0]["shape"], json::parse("[3, 5]"));
  EXPECT_TRUE(refused["outputs"].is_null());
  EXPECT_EQ(record["input_cases"][3]["outputs"][0]["shape"], json::parse("[7, 2]"));
  EXPECT_FALSE(record["input_cases"][0].contains("shape"));
}

TEST(BuiltInModelRecord, DecodesIntoTheBriefRecordWithTheBriefsSettings) {
  const json brief = passed_record();
  EXPECT_EQ(brief_view(built_in_model_record(brief)), brief);
  const json view = brief_view(two_threads(brief));
  EXPECT_EQ(view["runtime"]["session"], brief["runtime"]["session"]);  // the profile's own
  EXPECT_EQ(view, brief);
}

TEST(BuiltInModelRecord, ReadsAnyJsonWithoutThrowing) {
  for (const char* text : {"null", "[]", "{}", R"({"format": "nnx.model-conformance/1", "model": {"kind": "built-in"},
                           "input_cases": [1, {"inputs": 3}], "runtime": 7})"}) {
    const json hostile = json::parse(text);
    EXPECT_NO_THROW(brief_view(hostile)) << text;
    EXPECT_NO_THROW(built_in_model_record(hostile)) << text;
  }
  EXPECT_TRUE(is_built_in_model_record(json::parse(R"({"format": "nnx.model-conformance/1",
                                                       "model": {"kind": "built-in"}})")));
  EXPECT_FALSE(is_built_in_model_record(json::parse(R"({"format": "nnx.model-conformance/1",
                                                        "model": {"kind": "onnx-file"}})")));
  EXPECT_EQ(model_kind_of_record(two_threads(passed_record())), ModelKind::feed_forward);
}

TEST(BuiltInModelRecord, IsValidAndReadsBackAsTheSameJson) {
  const json record = two_threads(passed_record());
  expect_accepted(record);
  const Record typed = Record::from_json(record);
  EXPECT_EQ(typed.kind(), ModelKind::feed_forward);
  EXPECT_EQ(typed.runtime.session.intra_op_num_threads, 2);
  EXPECT_EQ(typed.to_json(), record);
}

TEST(BuiltInModelRecord, ARecordTakesTheSuccessorFormatOnlyUnderOtherSettings) {
  Record brief = Record::from_json(passed_record());
  brief.settle_format_for_settings();
  EXPECT_EQ(brief.to_json(), passed_record());  // the brief's settings: byte for byte
  brief.runtime.provider = "OpenVINOExecutionProvider";
  brief.settle_format_for_settings();
  EXPECT_EQ(brief.format, "nnx.model-conformance/1");
  const json written = brief.to_json();
  EXPECT_EQ(written["model"]["kind"], "built-in");
  EXPECT_EQ(written["runtime"]["provider"], "OpenVINOExecutionProvider");
  expect_accepted(written);
}

TEST(BuiltInModelRecord, RefusesAKeyThatIsNotTheEncodingOfItsView) {
  json record = two_threads(passed_record());
  record["dims"]["batch"] = json::parse("[1, 2, 3, 7]");
  expect_refused(record, "dims: {\"batch\": [1, 2, 3, 7]} is not what model.config");
  json number = two_threads(passed_record());
  number["inputs"][0]["shape"][1] = 4.0;  // the same by value, not the encoding's text
  expect_refused(number, "inputs: ");
}

TEST(BuiltInModelRecord, NamesTheViewsProblemsWhereTheRecordHoldsThem) {
  json record = two_threads(passed_record());
  record["model"]["config"].erase("weights_sha256");
  expect_refused(record, "model.config.weights_sha256: missing");
  json cased = two_threads(passed_record());
  cased["input_cases"][0]["seed"] = "one";
  expect_refused(cased, "input_cases[0] (batch-1).seed");
  json shaped = two_threads(passed_record());
  shaped["input_cases"][0]["inputs"][0]["shape"] = json::parse("[1]");
  expect_refused(shaped, "input_cases[0] (batch-1).inputs[0].shape");
}

TEST(BuiltInModelRecord, HoldsItsSettingsWithinTheSuccessorsRules) {
  json record = two_threads(passed_record());
  record["runtime"]["session"]["graph_optimization_level"] = "ORT_LEVEL_NINE";
  expect_refused(record, "runtime.session.graph_optimization_level: must be one of");
  json provider = two_threads(passed_record());
  provider["runtime"]["provider"] = 3;
  expect_refused(provider, "runtime.provider: must be the name of an execution provider");
}

}  // namespace
}  // namespace nnx
