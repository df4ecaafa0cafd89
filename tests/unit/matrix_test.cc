// The runtime matrix's arithmetic (src/matrix/): float32 ulps, drift's pair choice and tolerance against the
// newest runtime, version order and shard planning (doc/runtime-matrix.md).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "base/error.h"
#include "matrix/cell_plan.h"
#include "matrix/drift.h"

namespace nnx::matrix {
namespace {

TEST(Float32Ulps, CountsTheFloatsBetweenTwoValues) {
  EXPECT_EQ(float32_ulps(1.0f, 1.0f), 0u);
  EXPECT_EQ(float32_ulps(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(float32_ulps(std::nextafter(1.0f, 2.0f), 1.0f), 1u);
  float x = 3.5f;
  for (int i = 0; i < 7; ++i) x = std::nextafter(x, 0.0f);
  EXPECT_EQ(float32_ulps(3.5f, x), 7u);
  EXPECT_EQ(float32_ulps(0.0f, -0.0f), 0u);
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(float32_ulps(tiny, -tiny), 2u);  // across zero: -tiny, (-0 = +0), +tiny
  EXPECT_EQ(float32_ulps(1.0f, 2.0f), 1u << 23);  // one binade holds 2^23 floats
}

RuntimeOutputs runtime(const std::string& version, std::vector<float> values) {
  return RuntimeOutputs{version, {{"p", {CaseOutput{"batch-1", {1, static_cast<std::int64_t>(values.size())},
                                                     std::move(values)}}}},
                        "", true};
}

TEST(Drift, NamesThePairWithTheLargestAbsoluteDifference) {
  const float one = 1.0f, next = std::nextafter(1.0f, 2.0f);
  const std::vector<RuntimeOutputs> runtimes{runtime("1.16.3", {one, 10.25f}), runtime("1.20.1", {next, 10.0f}),
                                             runtime("1.32.0", {one, 10.5f})};
  const json drift = compute_drift(runtimes, {{"p", Tolerance{0.0, 0.25}}});
  ASSERT_EQ(drift["cases"].size(), 1u);
  const json& c = drift["cases"][0];
  EXPECT_EQ(c["pair"], json::array({"1.20.1", "1.32.0"}));  // |10 - 10.5| beats |10.25 - 10.5| and |10.25 - 10|
  EXPECT_DOUBLE_EQ(c["max_abs_difference"].get<double>(), 0.5);
  EXPECT_EQ(c["max_ulps"], float32_ulps(10.0f, 10.5f));
  EXPECT_EQ(c["newest"], "1.32.0");
  // Against the newest with atol 0.25: 1.16.3 is 0.25 away (within), 1.20.1 0.5 away (beyond, named).
  ASSERT_EQ(drift["beyond_tolerance"].size(), 1u);
  EXPECT_EQ(drift["beyond_tolerance"][0]["version"], "1.20.1");
  EXPECT_EQ(drift["beyond_tolerance"][0]["newest"], "1.32.0");
}

TEST(Drift, EqualPairsGoToTheFirstInMatrixOrderAndWithinToleranceIsNotNamed) {
  // 1.32.0 is one ulp from both others, which agree: two equal pairs, the first in matrix order is named.
  const float one = 1.0f, next = std::nextafter(1.0f, 2.0f);
  const std::vector<RuntimeOutputs> runtimes{runtime("1.24.4", {one}), runtime("1.30.0", {one}),
                                             runtime("1.32.0", {next})};
  const json drift = compute_drift(runtimes, {{"p", Tolerance{1e-5, 1e-6}}});
  const json& c = drift["cases"][0];
  EXPECT_EQ(c["max_ulps"], 1);
  EXPECT_EQ(c["pair"], json::array({"1.24.4", "1.32.0"}));
  EXPECT_TRUE(drift["beyond_tolerance"].empty());
  ASSERT_EQ(c["versus_newest"].size(), 2u);
  for (const auto& v : c["versus_newest"]) EXPECT_TRUE(v["within_tolerance"].get<bool>());
}

TEST(Drift, DifferentShapesAreNotComparableAndBeyondTolerance) {
  std::vector<RuntimeOutputs> runtimes{runtime("1.20.1", {1.0f, 2.0f}), runtime("1.32.0", {1.0f})};
  const json drift = compute_drift(runtimes, {{"p", Tolerance{1.0, 1.0}}});
  EXPECT_TRUE(drift["cases"][0]["pair"].is_null());
  ASSERT_EQ(drift["beyond_tolerance"].size(), 1u);
  EXPECT_TRUE(drift["beyond_tolerance"][0]["max_abs_difference"].is_null());
}

TEST(ShardPlan, EveryCellInExactlyOneShard) {
  for (std::size_t count = 1; count <= 4; ++count) {
    std::multiset<std::size_t> all;
    for (std::size_t k = 0; k < count; ++k) {
      for (std::size_t cell : shard_cells(5, Shard{k, count})) {
        EXPECT_EQ(cell % count, k);
        all.insert(cell);
      }
    }
    EXPECT_EQ(all, (std::multiset<std::size_t>{0, 1, 2, 3, 4}));
  }
  EXPECT_EQ(shard_cells(5, parse_shard("1/2")), (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(shard_text(parse_shard("2/3")), "2/3");
}

TEST(ShardPlan, RefusesAShardOutsideItsCount) {
  for (const char* bad : {"2/2", "0/0", "1", "-1/2", "a/b", "1/2/3"}) {
    EXPECT_THROW(parse_shard(bad), UsageError) << bad;
  }
}

// --shard ci: each CI's variables in its own base, the first pair set wins, a bad pair is named.
TEST(ShardPlan, ReadsEachCisParallelJobVariablesInItsOwnBase) {
  const auto env = [](std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  const CiShard gitlab = shard_from_ci(env({{"CI_NODE_INDEX", "3"}, {"CI_NODE_TOTAL", "3"}}));
  EXPECT_EQ(shard_text(gitlab.shard), "2/3");  // GitLab counts from 1
  EXPECT_NE(gitlab.from.find("GitLab, index from 1"), std::string::npos);
  EXPECT_EQ(shard_text(shard_from_ci(env({{"CIRCLE_NODE_INDEX", "0"}, {"CIRCLE_NODE_TOTAL", "2"}})).shard), "0/2");
  EXPECT_EQ(shard_text(shard_from_ci(env({{"BUILDKITE_PARALLEL_JOB", "4"},
                                          {"BUILDKITE_PARALLEL_JOB_COUNT", "5"}})).shard), "4/5");
  for (const auto& bad : std::vector<std::map<std::string, std::string>>{
           {{"CI_NODE_INDEX", "0"}, {"CI_NODE_TOTAL", "3"}},  // GitLab's index starts at 1
           {{"CI_NODE_INDEX", "4"}, {"CI_NODE_TOTAL", "3"}},
           {{"CIRCLE_NODE_INDEX", "1"}},
           {{"BUILDKITE_PARALLEL_JOB", "x"}, {"BUILDKITE_PARALLEL_JOB_COUNT", "2"}},
           {}}) {
    EXPECT_THROW(shard_from_ci(env(bad)), UsageError);
  }
}

TEST(Versions, CompareByNumberNotText) {
  EXPECT_LT(compare_versions("1.9.0", "1.16.3"), 0);
  EXPECT_GT(compare_versions("1.32.0", "1.30.0"), 0);
  EXPECT_EQ(compare_versions("1.20.1", "1.20.1"), 0);
  EXPECT_NE(compare_versions("1.20.1", "1.20.1+crashing"), 0);
  EXPECT_EQ(version_in_file_name("/x/libonnxruntime.so.1.24.4"), "1.24.4");
  EXPECT_FALSE(version_in_file_name("/x/libnnx_crashing_runtime.so").has_value());
}

}  // namespace
}  // namespace nnx::matrix
