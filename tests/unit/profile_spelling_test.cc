// One spelling of the opset and tolerances for every kind of profile object (profile/profile_spelling.h):
// opset_version, rtol and atol; opset and tolerances {rtol, atol} read as their alias in either kind; both
// spellings of one setting a problem naming both keys; each kind keeps its own defaults.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "profile/profile.h"

namespace nnx {
namespace {

using nlohmann::json;

json feedfwd() { return json{{"name", "ff"}, {"exporter", "torchscript"}}; }

json module() {
  return json{{"name", "mod"}, {"exporter", "dynamo"}, {"module", "tests/models/zoo.py:resnet18"},
              {"inputs", json::array({{{"name", "x"}, {"shape", {"batch", 4}}}})}, {"dims", {{"batch", {2, 1}}}}};
}

json with(json object, const json& keys) {
  for (const auto& [k, v] : keys.items()) object[k] = v;
  return object;
}

std::vector<std::string> spelling_problems(const json& object, Profile* out = nullptr) {
  std::vector<std::string> problems;
  Profile p = profile_from_json(object, problems);
  if (out) *out = p;
  std::vector<std::string> found;
  for (const auto& problem : problems) {
    if (problem.find("opset") != std::string::npos || problem.find("tol") != std::string::npos) found.push_back(problem);
  }
  return found;
}

TEST(ProfileSpelling, EachKindKeepsItsDefaults) {
  Profile p;
  EXPECT_TRUE(spelling_problems(feedfwd(), &p).empty());
  EXPECT_EQ(p.opset_version, 17);
  EXPECT_TRUE(spelling_problems(module(), &p).empty());
  EXPECT_EQ(p.opset_version, 18);
  EXPECT_EQ(p.rtol, 1e-4);
  EXPECT_EQ(p.atol, 1e-5);
}

// `object` is read without a spelling problem into these settings.
void expect_read(const json& object, std::int64_t opset, double rtol, double atol) {
  Profile p;
  EXPECT_TRUE(spelling_problems(object, &p).empty()) << object.dump();
  EXPECT_EQ(p.opset_version, opset) << object.dump();
  EXPECT_EQ(p.rtol, rtol) << object.dump();
  EXPECT_EQ(p.atol, atol) << object.dump();
}

TEST(ProfileSpelling, TheCanonicalSpellingIsReadInBothKinds) {
  for (const json& base : {feedfwd(), module()}) {
    expect_read(with(base, {{"opset_version", 19}, {"rtol", 1e-3}, {"atol", 1e-6}}), 19, 1e-3, 1e-6);
  }
}

TEST(ProfileSpelling, TheAliasIsReadInBothKinds) {
  for (const json& base : {feedfwd(), module()}) {
    expect_read(with(base, {{"opset", 19}, {"tolerances", {{"rtol", 1e-3}, {"atol", 1e-6}}}}), 19, 1e-3, 1e-6);
    const std::int64_t default_opset = base.contains("module") ? 18 : 17;
    expect_read(with(base, {{"tolerances", {{"atol", 0.5}}}}), default_opset, 1e-4, 0.5);  // rtol keeps its default
  }
}

TEST(ProfileSpelling, BothSpellingsOfOneSettingAreAProblemNamingBothKeys) {
  for (const json& base : {feedfwd(), module()}) {
    auto found = spelling_problems(with(base, {{"opset_version", 17}, {"opset", 17}}));
    ASSERT_EQ(found.size(), 1u) << base.dump();
    EXPECT_EQ(found[0], "profile: opset_version and opset are both given: opset is the other spelling of "
                        "opset_version, give one of them (opset_version is the documented one)");
    found = spelling_problems(with(base, {{"rtol", 1e-4}, {"tolerances", {{"atol", 1e-5}}}}));
    ASSERT_EQ(found.size(), 1u) << base.dump();
    EXPECT_NE(found[0].find("rtol/atol and tolerances are both given"), std::string::npos) << found[0];
  }
}

TEST(ProfileSpelling, AnAliasOfTheWrongTypeIsNamedAsWritten) {
  auto found = spelling_problems(with(feedfwd(), {{"opset", "17"}, {"tolerances", {{"rtol", "x"}, {"ulp", 1}}}}));
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], "profile.opset: must be an integer, not string");
  EXPECT_NE(found[1].find("profile.tolerances.rtol: must be a number"), std::string::npos) << found[1];
  EXPECT_EQ(found[2], "profile.tolerances.ulp: unknown key");
}

TEST(ProfileSpelling, BothKindsAreWrittenInTheCanonicalSpelling) {
  std::vector<std::string> problems;
  for (const json& base : {feedfwd(), module()}) {
    const json written = profile_from_json(with(base, {{"opset", 19}}), problems).to_json();
    EXPECT_EQ(written["opset_version"], 19);
    EXPECT_EQ(written["rtol"], 1e-4);
    EXPECT_EQ(written["atol"], 1e-5);
    EXPECT_FALSE(written.contains("opset") || written.contains("tolerances")) << written.dump();
  }
}

}  // namespace
}  // namespace nnx
