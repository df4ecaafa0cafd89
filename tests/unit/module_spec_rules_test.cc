// The rules a module profile and a module record share (profile/module_spec_rules.h; doc/record-format.md
// §10): each rule on its own, then each broken in a profile (ModuleSpec::problems, checked before anything
// runs) and in a record (record_problems), so that a profile the reader accepts never makes a record the
// validator refuses at the end of a run.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "profile/module_spec.h"
#include "profile/module_spec_rules.h"
#include "record/validate_record.h"
#include "support/module_record.h"
#include "support/engine_record.h"

namespace nnx {
namespace {

using nlohmann::json;
using test_support::joined;
using test_support::module_record_json;

// An image model's spec, as tests/support/module_record.h's record states it.
ModuleSpec image_spec() {
  ModuleSpec spec;
  spec.factory = "vision.models:image_net";
  spec.inputs = {InputSpec{"image", {{std::nullopt, "batch"}, {3, ""}, {64, ""}, {64, ""}}, DType::float32, {}, {}}};
  spec.dims = {{"batch", {2, 1, 3}}};
  spec.outputs = std::vector<std::string>{"logits"};
  return spec;
}

std::string profile_problems(const ModuleSpec& spec) { return joined(spec.problems()); }

std::string record_refusal(const std::function<void(json&)>& change) {
  json record = module_record_json();
  change(record);
  return joined(record_problems(record));
}

TEST(ModuleSpecRules, OutputsAreANonEmptyListOfDistinctNonEmptyNames) {
  EXPECT_EQ(outputs_problem({"logits"}), "");
  EXPECT_EQ(outputs_problem({"scores", "gate"}), "");
  EXPECT_NE(outputs_problem({}).find("an empty list"), std::string::npos);
  EXPECT_NE(outputs_problem({"s", "s"}).find("\"s\" is given twice"), std::string::npos);
  EXPECT_NE(outputs_problem({"s", ""}).find("empty"), std::string::npos);
}

TEST(ModuleSpecRules, CaseNamesNameTheEarlierCaseOfTheSameName) {
  CaseNames names;
  EXPECT_FALSE(names.add("batch-2", "first"));
  EXPECT_FALSE(names.add("batch-1", "second"));
  EXPECT_EQ(names.add("batch-2", "third"), std::optional<std::string>("first"));
  EXPECT_EQ(names.add("batch-2", "fourth"), std::optional<std::string>("first"));
}

TEST(ModuleSpecRules, ARefusalCaseNameIsAPlainFolderName) {
  EXPECT_EQ(refusal_name_problem("image-axis1-4"), "");
  EXPECT_NE(refusal_name_problem("a b-axis0-3").find("plain name"), std::string::npos);
  EXPECT_NE(refusal_name_problem(std::string(250, 'x') + "-axis1-4").find("at most 255"), std::string::npos);
}

TEST(ModuleSpecRules, TheImageSpecAndItsRecordAreAccepted) {
  EXPECT_EQ(profile_problems(image_spec()), "");
  EXPECT_EQ(record_refusal([](json&) {}), "");
}

TEST(ModuleSpecRules, DuplicateOutputNamesAreRefusedByTheProfileAndTheRecord) {
  ModuleSpec spec = image_spec();
  spec.outputs = std::vector<std::string>{"logits", "logits"};
  EXPECT_NE(profile_problems(spec).find("outputs: the name \"logits\" is given twice"), std::string::npos)
      << profile_problems(spec);
  const std::string refused = record_refusal([](json& r) { r["outputs"] = json::array({"logits", "logits"}); });
  EXPECT_NE(refused.find("outputs: must be null or a non-empty list of distinct names"), std::string::npos) << refused;
}

TEST(ModuleSpecRules, AnEmptyOutputsListIsRefusedByTheProfileAndTheRecord) {
  ModuleSpec spec = image_spec();
  spec.outputs = std::vector<std::string>{};
  EXPECT_NE(profile_problems(spec).find("outputs: an empty list names no output"), std::string::npos)
      << profile_problems(spec);
  const std::string refused = record_refusal([](json& r) { r["outputs"] = json::array(); });
  EXPECT_NE(refused.find("an empty list names no output"), std::string::npos) << refused;
}

// A dim named "image-axis1" at 4 makes the match case "image-axis1-4", the name of the refusal case of the
// image's axis 1 (3 + 1).
TEST(ModuleSpecRules, ADimNameThatMakesTwoCasesShareANameIsRefusedByTheProfileAndTheRecord) {
  ModuleSpec spec = image_spec();
  spec.inputs[0].shape[0].symbol = "image-axis1";
  spec.dims = {{"image-axis1", {2, 4}}};
  const std::string problems = profile_problems(spec);
  EXPECT_NE(problems.find("are both named \"image-axis1-4\""), std::string::npos) << problems;
  const std::string refused = record_refusal([](json& r) { r["input_cases"][1]["name"] = "image-axis1-4"; });
  EXPECT_NE(refused.find("names the same case as input_cases[1]"), std::string::npos) << refused;
}

TEST(ModuleSpecRules, AnInputNameTooLongForItsRefusalFolderIsRefusedByTheProfileAndTheRecord) {
  ModuleSpec spec = image_spec();
  spec.inputs[0].name = std::string(250, 'i');
  EXPECT_NE(profile_problems(spec).find("at most 255"), std::string::npos) << profile_problems(spec);
  const std::string long_name = std::string(250, 'i') + "-axis1-4";
  const std::string refused = record_refusal([&](json& r) { r["input_cases"][3]["name"] = long_name; });
  EXPECT_NE(refused.find("at most 255"), std::string::npos) << refused;
}

}  // namespace
}  // namespace nnx
