// Parity's triangulation arithmetic (stages/triangulation.h) and the float64 oracle (model/feedfwd.h) (the
// worker's tensor wire is tensor_frames_test.cc):
//  * a margin is the worst error over the allowed error; a zero tolerance where values differ is unbounded;
//  * the blame follows from which side departs, weights first;
//  * the oracle agrees with the float32 forward to float32 rounding, for every activation.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "model/feedfwd.h"
#include "model/input_draw.h"
#include "stages/triangulation.h"

namespace nnx {
namespace {

TEST(Departure, MarginIsTheWorstErrorOverTheAllowedError) {
  const std::vector<double> values{1.0, 2.0, -3.0}, against{1.0, 2.1, -3.0};
  const Departure d = departure(values, against, /*rtol=*/0.0, /*atol=*/0.2);
  EXPECT_DOUBLE_EQ(d.max_abs_error, std::fabs(2.0 - 2.1));
  ASSERT_TRUE(d.margin.has_value());
  EXPECT_DOUBLE_EQ(*d.margin, std::fabs(2.0 - 2.1) / 0.2);
  EXPECT_FALSE(d.beyond_tolerance());
  EXPECT_TRUE(departure(values, against, 0.0, 0.05).beyond_tolerance());
}

TEST(Departure, RelativeToleranceScalesWithTheSideMeasuredAgainst) {
  const std::vector<double> values{101.0}, against{100.0};
  EXPECT_DOUBLE_EQ(*departure(values, against, 0.01, 0.0).margin, 1.0);  // exactly at the tolerance: passes
  EXPECT_FALSE(departure(values, against, 0.01, 0.0).beyond_tolerance());
}

TEST(Departure, AZeroToleranceIsUnboundedOnlyWhereValuesDiffer) {
  const std::vector<double> same{1.0, 2.0};
  EXPECT_EQ(departure(same, same, 0.0, 0.0).margin, 0.0);
  const std::vector<double> other{1.0, 2.5};
  const Departure d = departure(same, other, 0.0, 0.0);
  EXPECT_FALSE(d.margin.has_value());
  EXPECT_TRUE(d.beyond_tolerance());
  EXPECT_DOUBLE_EQ(d.max_abs_error, 0.5);
  EXPECT_TRUE(d.to_json()["margin"].is_null());
}

TEST(TriangulationRows, EveryRowOfASmallModelAndABoundedShareOfALargeOne) {
  EXPECT_EQ(triangulation_rows(7, 58), 7);                       // the tested model: every row
  EXPECT_EQ(triangulation_rows(0, 58), 0);                       // nothing to triangulate
  EXPECT_EQ(triangulation_rows(32768, 16777194), 4);             // 2^26 / (2^24 - 22) multiply-adds per row
  EXPECT_EQ(triangulation_rows(32768, std::int64_t{1} << 30), 1);  // never fewer than one row
  EXPECT_LE(triangulation_rows(1 << 20, 1 << 10) * (1 << 10), kOracleMultiplyAddsPerCase);
}

TEST(Blame, WeightsComeFirstThenWhicheverSideDeparts) {
  EXPECT_STREQ(blame_of({true, true, false}), "weights");
  EXPECT_STREQ(blame_of({true, false, true}), "weights");
  EXPECT_STREQ(blame_of({false, true, false}), "runtime-or-graph");
  EXPECT_STREQ(blame_of({false, false, true}), "reference");
  EXPECT_STREQ(blame_of({false, true, true}), "both");
  EXPECT_STREQ(blame_of({false, false, false}), "both");
}

class OracleForEveryActivation : public ::testing::TestWithParam<const char*> {};

TEST_P(OracleForEveryActivation, AgreesWithTheFloat32ForwardToFloat32Rounding) {
  ModelConfig config;
  config.hidden_dims = {16, 8};
  config.activation = GetParam();
  const FeedFwdNN model(config);
  const std::vector<float> input = draw_randn({5, config.input_dim}, 1005);
  const std::vector<float> fp32 = model.forward_eval(input, 5);
  const std::vector<double> oracle = model.forward_oracle(input, 5);
  ASSERT_EQ(fp32.size(), oracle.size());
  bool differs_somewhere = false;
  for (std::size_t i = 0; i < fp32.size(); ++i) {
    EXPECT_NEAR(fp32[i], oracle[i], 1e-5 + 1e-5 * std::fabs(oracle[i])) << i;
    differs_somewhere = differs_somewhere || static_cast<double>(fp32[i]) != oracle[i];
  }
  EXPECT_TRUE(differs_somewhere) << "the oracle must not share float32 rounding";
}

INSTANTIATE_TEST_SUITE_P(Activations, OracleForEveryActivation,
                         ::testing::Values("elu", "selu", "tanh", "relu", "softmax", "sigmoid", "softplus",
                                           "leaky_relu"));

}  // namespace
}  // namespace nnx
