// The one export-answer rule (stages/export_kind.h read_export_answer; doc/record-format.md §4 export), for
// every kind the worker exports: the worker's answer is handed in as the exporter worker returns it, and the
// record shows what the rule made of it. The end-to-end tests cause each answer with real exporters
// (test_failure_classes.py); these name the rule's order in milliseconds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profile/profile.h"
#include "record/record.h"
#include "stages/export_kind.h"
#include "support/engine_record.h"
#include "support/module_record.h"

namespace nnx {
namespace {

using nlohmann::json;

const json kState = {{"parameters", true}, {"gradients", true}, {"modes", true}};

json answer(json changes) {
  json out{{"model_state", kState}, {"changed", json::array()}, {"warnings", json::array({"w"})},
           {"exception", nullptr}, {"log", "the log"}, {"wrote_model", true}};
  out.update(changes);
  return out;
}

class ExportAnswer : public ::testing::TestWithParam<bool> {  // a feed-forward record, then a module record
 protected:
  Record record_ = GetParam() ? test_support::module_record(Stage::dependencies)
                              : Record::from_json(test_support::engine_record(*tested_profile(kTorchscriptProfile),
                                                                              Stage::dependencies));
  StageContext context_{record_, "no-artifacts-root", nullptr};
  const StageEntry& stage() const { return record_.stage(Stage::export_model); }
};

TEST_P(ExportAnswer, AStateChangedIsReportedFirstWithTheExportersOwnFailureBeside) {
  EXPECT_FALSE(read_export_answer(context_, answer({{"changed", {"training"}}, {"exception", "boom"}})));
  EXPECT_EQ(stage().failure, FailureClass::state_changed);
  EXPECT_EQ(stage().detail.at("changed"), json::array({"training"}));
  EXPECT_EQ(stage().detail.at("export"), (json{{"error", "boom"}, {"log", "the log"}}));
  EXPECT_EQ(record_.model_state, kState);  // the exporter was called
}

TEST_P(ExportAnswer, AnExporterThatRaisedIsAnExportErrorWithItsMessageAndLog) {
  EXPECT_FALSE(read_export_answer(context_, answer({{"exception", "boom"}})));
  EXPECT_EQ(stage().failure, FailureClass::export_error);
  EXPECT_EQ(stage().detail, (json{{"error", "boom"}, {"log", "the log"}}));
}

TEST_P(ExportAnswer, AnExportThatWroteNoModelIsAnExportError) {
  EXPECT_FALSE(read_export_answer(context_, answer({{"wrote_model", false}})));
  EXPECT_EQ(stage().failure, FailureClass::export_error);
  EXPECT_EQ(stage().detail.at("error"), "the exporter wrote no model.onnx");
}

TEST_P(ExportAnswer, ACleanAnswerPassesTheRuleAndLeavesTheStageToTheKind) {
  EXPECT_TRUE(read_export_answer(context_, answer(json::object())));
  EXPECT_EQ(stage().status, StageStatus::not_run);
  EXPECT_EQ(record_.model_state, kState);
}

TEST_P(ExportAnswer, AnAnswerWithoutModelStateLeavesItNull) {
  json without = answer({{"exception", "boom"}});
  without.erase("model_state");
  EXPECT_FALSE(read_export_answer(context_, without));
  EXPECT_TRUE(record_.model_state.is_null());
}

INSTANTIATE_TEST_SUITE_P(EveryKind, ExportAnswer, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Module" : "FeedForward"; });

}  // namespace
}  // namespace nnx
