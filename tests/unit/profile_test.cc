// Profiles: defaults, the tested profiles' canonical settings text, and every limit (record-format §1, §3).
#include <gtest/gtest.h>

#include "base/error.h"
#include "base/failure.h"
#include "profile/profile.h"

namespace nnx {
namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& needle) {
  for (const auto& p : problems) {
    if (p.find(needle) != std::string::npos) return true;
  }
  return false;
}

Profile custom() {
  Profile p;
  p.name = "custom-profile";
  return p;
}

TEST(Profile, TorchscriptCanonicalTextIsExactlyTheSpecifiedText) {
  const std::string expected =
      R"({"artifact directory": "feedfwd-fp32-torchscript", "dtype": "float32", "exporter options": {"dynamic_batch": true, "dynamo": false, "export_batch": 2, "exporter": "torchscript", "input_names": ["features"], "opset_version": 17, "output_names": ["logits"]}, "input cases": [{"expect": "match", "name": "batch-1", "seed": 1001, "shape": [1, 4]}, {"expect": "match", "name": "batch-2", "seed": 1002, "shape": [2, 4]}, {"expect": "match", "name": "batch-3", "seed": 1003, "shape": [3, 4]}, {"expect": "match", "name": "batch-7", "seed": 1007, "shape": [7, 4]}, {"expect": "rejected", "name": "width-5", "seed": 2000, "shape": [3, 5]}], "model config": {"activation": "relu", "dropout": 0.0, "hidden_dims": [8], "input_dim": 4, "net": "feed_fwd", "output_dim": 2, "weights": {"distribution": "normal", "generator": "torch.Generator", "seed": 0, "std": 0.5}}, "runtime": ["onnxruntime", "CPUExecutionProvider"], "tolerances": {"atol": 1e-05, "rtol": 0.0001}})";
  EXPECT_EQ(tested_profile(kTorchscriptProfile)->canonical_settings_text(), expected);
}

TEST(Profile, TestedProfilesRunTorchscriptThenDynamo) {
  ASSERT_EQ(tested_profiles().size(), 2u);
  EXPECT_EQ(tested_profiles()[0].name, "feedfwd-fp32-torchscript");
  EXPECT_EQ(tested_profiles()[1].name, "feedfwd-fp32-dynamo");
  EXPECT_TRUE(tested_profiles()[1].exporter_options()["dynamo"].get<bool>());
  EXPECT_TRUE(tested_profiles()[0].problems().empty());
  EXPECT_TRUE(tested_profiles()[1].problems().empty());
}

TEST(Profile, AnUnknownTestedNameIsTheOneUsageError) {
  EXPECT_EQ(tested_profile_named(kDynamoProfile).canonical_settings_text(),
            tested_profile(kDynamoProfile)->canonical_settings_text());
  try {
    tested_profile_named("resnet50");
    FAIL() << "an unknown name was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(exit_code_of(e), kExitUsage);
    EXPECT_STREQ(e.what(),
                 "unknown profile \"resnet50\" (tested profiles: feedfwd-fp32-torchscript, feedfwd-fp32-dynamo)");
  }
}

TEST(Profile, ExporterOptionsHaveExactlySevenKeys) {
  const json options = custom().exporter_options();
  EXPECT_EQ(options.size(), 7u);
  for (const char* key : {"exporter", "dynamo", "opset_version", "dynamic_batch", "export_batch", "input_names",
                          "output_names"}) {
    EXPECT_TRUE(options.contains(key)) << key;
  }
}

TEST(Profile, InputCasesFollowTheBatchesThenOneRefusalCase) {
  Profile p = custom();
  p.feed_forward().batches = {5, 1, 5};
  p.feed_forward().model.input_dim = 6;
  const auto cases = p.input_cases();
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].name, "batch-5");
  EXPECT_EQ(cases[0].seed, 1005u);
  EXPECT_EQ(cases[2].name, "batch-5");  // not deduplicated
  EXPECT_EQ(cases[3].name, "width-7");
  EXPECT_EQ(cases[3].shape(), (std::vector<std::int64_t>{3, 7}));
  EXPECT_EQ(cases[3].seed, 2000u);
  EXPECT_EQ(cases[3].expect, "rejected");
}

TEST(Profile, ReusingATestedNameWithOtherSettingsIsRefused) {
  Profile p = *tested_profile(kDynamoProfile);
  p.rtol = 1e-3;
  EXPECT_TRUE(mentions(p.problems(), "reuses a tested profile's name"));
  EXPECT_THROW(require_valid(p), ConformanceError);
}

TEST(Profile, NameMustBePlain) {
  for (const char* bad : {"", ".", "..", "a/b", "a b", "ü"}) {
    Profile p = custom();
    p.name = bad;
    EXPECT_TRUE(mentions(p.problems(), "plain name")) << bad;
  }
  EXPECT_TRUE(is_plain_name("a.b_c-9"));
}

TEST(Profile, LimitsAreEnforced) {
  {
    Profile p = custom();
    p.feed_forward().model.hidden_dims.assign(65, 1);
    EXPECT_TRUE(mentions(p.problems(), "hidden layers"));
  }
  {
    Profile p = custom();
    p.feed_forward().model.hidden_dims = {65537};
    EXPECT_TRUE(mentions(p.problems(), "hidden_dims[0]"));
  }
  {
    Profile p = custom();
    p.feed_forward().model.input_dim = 4096;
    p.feed_forward().model.hidden_dims = {4096};
    p.feed_forward().model.output_dim = 1;
    EXPECT_TRUE(mentions(p.problems(), "weights"));  // 4096*4096+4096+4097 > 2^24
  }
  {
    Profile p = custom();
    p.feed_forward().model.hidden_dims = {65536};
    p.feed_forward().batches = {257};
    EXPECT_TRUE(mentions(p.problems(), "exceeds 2^24 values"));
    p.feed_forward().batches = {256};
    EXPECT_TRUE(p.problems().empty());
  }
  {
    Profile p = custom();
    p.feed_forward().batches.assign(65, 1);
    EXPECT_TRUE(mentions(p.problems(), "at most 64"));
    p.feed_forward().batches.clear();
    EXPECT_TRUE(mentions(p.problems(), "at least one"));
  }
  {
    Profile p = custom();
    p.opset_version = 0;
    p.feed_forward().export_batch = 65537;
    EXPECT_TRUE(mentions(p.problems(), "opset_version"));
    EXPECT_TRUE(mentions(p.problems(), "export_batch"));
  }
  {
    Profile p = custom();
    p.rtol = std::numeric_limits<double>::infinity();
    p.atol = -1;
    p.feed_forward().model.dropout = 1.0;
    p.feed_forward().model.weights.std = 0.0;
    p.feed_forward().model.activation = "gelu";
    p.feed_forward().dtype = "float16";
    p.runtime = "tensorrt";
    p.provider = "";
    EXPECT_TRUE(mentions(p.problems(), "rtol"));
    EXPECT_TRUE(mentions(p.problems(), "atol"));
    EXPECT_TRUE(mentions(p.problems(), "dropout"));
    EXPECT_TRUE(mentions(p.problems(), "std"));
    EXPECT_TRUE(mentions(p.problems(), "gelu"));
    EXPECT_TRUE(mentions(p.problems(), "dtype"));
    EXPECT_TRUE(mentions(p.problems(), "runtime"));
    EXPECT_TRUE(mentions(p.problems(), "provider"));
  }
}

TEST(Profile, EmptyHiddenListIsAllowed) {
  Profile p = custom();
  p.feed_forward().model.hidden_dims.clear();
  EXPECT_TRUE(p.problems().empty());
  EXPECT_EQ(p.feed_forward().model.weight_count(), 4 * 2 + 2);
}

TEST(Profile, FromJsonIsStrictAboutTypes) {
  std::vector<std::string> problems;
  profile_from_json(json{{"name", "x"}, {"opset_version", 17.0}, {"dynamic_batch", 1}, {"colour", "red"}}, problems);
  EXPECT_TRUE(mentions(problems, "opset_version: must be an integer, not float"));
  EXPECT_TRUE(mentions(problems, "dynamic_batch: must be a boolean"));
  EXPECT_TRUE(mentions(problems, "colour: unknown key"));
  problems.clear();
  const Profile p = profile_from_json(json{{"name", "x"}, {"dynamic_batch", false}, {"batches", {1, 5}},
                                           {"model", {{"hidden_dims", {3, 3}}}}},
                                      problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_FALSE(p.feed_forward().dynamic_batch);
  EXPECT_EQ(p.feed_forward().model.hidden_dims, (std::vector<std::int64_t>{3, 3}));
  EXPECT_EQ(p.feed_forward().model.input_dim, 4);
}

}  // namespace
}  // namespace nnx
