// The native reference forward (src/feedfwd.cc): an OpenBLAS float32 GEMM per layer, single-threaded, and
// the activations of src/activation.cc. Checked against a straightforward float64-accumulated reference
// with a rigorous float32 rounding bound, and every activation against known values.
#include "model/feedfwd.h"
#include "model/input_draw.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "model/activation.h"

namespace nnx {
namespace {

constexpr double kUnitRoundoff = 0x1p-24;  // float32

ModelConfig make_config(std::int64_t input_dim, std::vector<std::int64_t> hidden, std::int64_t output_dim,
                        const std::string& activation = "relu", double std_value = 0.5, std::uint64_t seed = 0) {
  ModelConfig c;
  c.input_dim = input_dim;
  c.hidden_dims = std::move(hidden);
  c.output_dim = output_dim;
  c.activation = activation;
  c.weights.seed = seed;
  c.weights.std = std_value;
  return c;
}

// The float64 reference: every product and sum in double, the activation applied in double (relu only,
// which is all the bound below needs), never rounded to float32. Alongside it, a first-order bound of
// how far ANY float32 evaluation order of the same network may stray from it: per layer, the GEMM's
// rounding gamma_{K+1} * (|b| + sum |x_k w_k|) plus the propagated error of the inputs (sum |w_k| e_k;
// relu is 1-Lipschitz), plus the rounding of the stored result.
struct Reference {
  std::vector<double> values;
  std::vector<double> bound;
};

Reference reference_forward(const FeedFwdNN& net, const std::vector<float>& input, std::int64_t batch) {
  const auto widths = net.config().widths();
  const auto& params = net.parameters();
  std::vector<double> x(input.begin(), input.end());
  std::vector<double> e(input.size(), 0.0);
  const std::size_t layers = widths.size() - 1;
  for (std::size_t l = 0; l < layers; ++l) {
    const auto in = static_cast<std::size_t>(widths[l]);
    const auto out = static_cast<std::size_t>(widths[l + 1]);
    const auto& w = params[2 * l].values;
    const auto& b = params[2 * l + 1].values;
    const double gamma = (static_cast<double>(in) + 1) * kUnitRoundoff / (1 - (in + 1) * kUnitRoundoff);
    std::vector<double> y(static_cast<std::size_t>(batch) * out), ye(y.size());
    for (std::size_t r = 0; r < static_cast<std::size_t>(batch); ++r) {
      for (std::size_t o = 0; o < out; ++o) {
        double acc = b[o], magnitude = std::fabs(b[o]), propagated = 0.0;
        for (std::size_t k = 0; k < in; ++k) {
          const double wk = w[o * in + k];
          acc += x[r * in + k] * wk;
          magnitude += std::fabs(x[r * in + k] * wk);
          propagated += std::fabs(wk) * e[r * in + k];
        }
        const bool last = l + 1 == layers;
        const double value = last ? acc : std::max(acc, 0.0);
        y[r * out + o] = value;
        ye[r * out + o] = gamma * magnitude + propagated + kUnitRoundoff * std::fabs(value);
      }
    }
    x.swap(y);
    e.swap(ye);
  }
  return {x, e};
}

void expect_within_bound(const FeedFwdNN& net, std::int64_t batch, std::uint64_t seed) {
  const std::vector<std::int64_t> shape = {batch, net.config().input_dim};
  const std::vector<float> input = draw_randn(shape, seed);
  const std::vector<float> got = net.forward_eval(input, batch);
  const Reference want = reference_forward(net, input, batch);
  ASSERT_EQ(got.size(), want.values.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    // Factor 2: the bound is first order; float32 blocked GEMMs stay far inside it in practice.
    const double slack = 2.0 * want.bound[i] + std::numeric_limits<float>::denorm_min();
    if (!(std::fabs(static_cast<double>(got[i]) - want.values[i]) <= slack)) {
      if (++bad <= 5) {
        ADD_FAILURE() << "element " << i << ": native " << got[i] << ", float64 reference " << want.values[i]
                      << ", allowed error " << slack;
      }
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST(FeedFwdForward, TestedModelMatchesFloat64Reference) {
  const FeedFwdNN net(ModelConfig{});  // 4-8-2, relu, seed 0, std 0.5
  for (std::int64_t batch : {1, 2, 3, 7}) expect_within_bound(net, batch, 1000 + batch);
}

TEST(FeedFwdForward, DeepAndWideLayersMatchFloat64Reference) {
  // K up to 700 (several OpenBLAS K blocks), odd widths, a batch crossing the row block (512).
  const FeedFwdNN net(make_config(33, {700, 129, 64}, 7, "relu", 0.05, 3));
  expect_within_bound(net, 1, 11);
  expect_within_bound(net, 5, 12);
  expect_within_bound(net, kForwardRowBlock + 77, 13);
}

TEST(FeedFwdForward, EmptyHiddenListIsOneLinearLayer) {
  const FeedFwdNN net(make_config(6, {}, 3, "tanh", 0.5, 9));
  ASSERT_EQ(net.parameters().size(), 2u);
  expect_within_bound(net, 1, 21);  // batch 1
  expect_within_bound(net, 9, 22);
  // No activation at all: the activation (tanh) never touches the logits.
  const std::vector<float> x = {1, 0, 0, 0, 0, 0};
  const std::vector<float> y = net.forward_eval(x, 1);
  const auto& w = net.parameters()[0].values;
  const auto& b = net.parameters()[1].values;
  for (int o = 0; o < 3; ++o) EXPECT_EQ(y[o], w[o * 6] + b[o]) << o;
}

TEST(FeedFwdForward, RowsDoNotDependOnTheirBatch) {
  // Each row of a batch equals the forward of that row alone, within float32 rounding of the reference
  // bound, also across the row-block boundary.
  const FeedFwdNN net(make_config(16, {64, 32}, 4, "relu", 0.2, 5));
  const std::int64_t batch = kForwardRowBlock + 3;
  const std::vector<float> input = draw_randn({batch, 16}, 77);
  const std::vector<float> all = net.forward_eval(input, batch);
  for (std::int64_t r : {std::int64_t{0}, std::int64_t{1}, kForwardRowBlock - 1, kForwardRowBlock, batch - 1}) {
    const std::vector<float> row(input.begin() + r * 16, input.begin() + (r + 1) * 16);
    const std::vector<float> one = net.forward_eval(row, 1);
    const Reference ref = reference_forward(net, row, 1);
    for (int o = 0; o < 4; ++o) {
      EXPECT_NEAR(all[r * 4 + o], one[o], 4.0 * ref.bound[o] + 1e-30) << "row " << r << " output " << o;
    }
  }
}

TEST(FeedFwdForward, BatchZeroAndBadInput) {
  const FeedFwdNN net(ModelConfig{});
  EXPECT_TRUE(net.forward_eval({}, 0).empty());
  const std::vector<float> five(5, 1.0f);
  EXPECT_THROW(net.forward_eval(five, 1), std::invalid_argument);
  EXPECT_THROW(net.forward_eval(five, -1), std::invalid_argument);
}

TEST(FeedFwdForward, RunsOnOneOpenBlasThread) {
  const FeedFwdNN net(make_config(64, {256}, 8));
  const std::vector<float> input = draw_randn({300, 64}, 1);
  (void)net.forward_eval(input, 300);
  const ForwardBlasInfo info = forward_blas_info();
  EXPECT_EQ(info.threads, 1) << info.config;
  EXPECT_NE(info.config.find("OpenBLAS"), std::string::npos) << info.config;
  EXPECT_FALSE(info.library.empty());
}

// ------------------------------------------------------------------------------------------- activations

std::vector<float> activate(const std::string& name, std::vector<float> row) {
  apply_activation(parse_activation(name), row);
  return row;
}

void expect_values(const std::string& name, const std::vector<float>& in, const std::vector<double>& want) {
  const std::vector<float> got = activate(name, in);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    // Known values from the mathematical definition (computed in high precision); float32 allows a few ulp.
    EXPECT_NEAR(got[i], want[i], 4e-7 * std::fabs(want[i]) + 1e-37)
        << name << "(" << in[i] << ")";
  }
}

TEST(Activation, KnownValues) {
  expect_values("relu", {-2.0f, -0.0f, 0.0f, 0.5f, 3.0f}, {0.0, 0.0, 0.0, 0.5, 3.0});
  expect_values("leaky_relu", {-2.0f, 0.0f, 1.5f}, {-0.02, 0.0, 1.5});
  expect_values("tanh", {-1.0f, 0.0f, 0.5f, 20.0f}, {-0.7615941559557649, 0.0, 0.46211715726000974, 1.0});
  expect_values("sigmoid", {-3.0f, 0.0f, 2.0f, 100.0f},
                {0.04742587317756678, 0.5, 0.8807970779778823, 1.0});
  expect_values("elu", {-1.0f, -20.0f, 0.0f, 2.0f}, {-0.6321205588285577, -0.9999999979388464, 0.0, 2.0});
  // SELU: scale * (x > 0 ? x : alpha * (exp(x) - 1)), PyTorch's constants.
  expect_values("selu", {-1.0f, 0.0f, 1.0f}, {-1.1113307378125625, 0.0, 1.0507009873554805});
  // Softplus(beta 1, threshold 20): log(1 + exp(x)), and x itself above 20.
  expect_values("softplus", {-30.0f, 0.0f, 1.0f, 21.0f},
                {9.357622968840175e-14, 0.6931471805599453, 1.3132616875182228, 21.0});
  expect_values("softmax", {1.0f, 2.0f, 3.0f}, {0.09003057317038046, 0.24472847105479767, 0.6652409557748219});
}

TEST(Activation, SoftmaxRowsSumToOne) {
  for (const std::vector<float>& row : {std::vector<float>{0.0f}, std::vector<float>{1000.0f, 1001.0f, -1000.0f},
                                        std::vector<float>{-5.0f, 0.25f, 3.0f, 3.0f, 7.5f, -88.0f}}) {
    const std::vector<float> p = activate("softmax", row);
    double sum = 0.0;
    for (float v : p) {
      EXPECT_TRUE(std::isfinite(v));
      EXPECT_GE(v, 0.0f);
      sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  // In a network, softmax applies per row of features, never across the batch.
  const FeedFwdNN net(make_config(5, {9}, 3, "softmax", 0.5, 2));
  const std::vector<float> input = draw_randn({4, 5}, 3);
  const std::vector<float> batch = net.forward_eval(input, 4);
  for (int r = 0; r < 4; ++r) {
    const std::vector<float> row(input.begin() + r * 5, input.begin() + (r + 1) * 5);
    const std::vector<float> one = net.forward_eval(row, 1);
    for (int o = 0; o < 3; ++o) EXPECT_NEAR(batch[r * 3 + o], one[o], 1e-5 * std::max(1.0f, std::fabs(one[o])));
  }
}

TEST(Activation, UnknownNameIsRefused) {
  EXPECT_THROW(parse_activation("gelu"), std::invalid_argument);
  EXPECT_THROW(parse_activation("ReLU"), std::invalid_argument);
}

}  // namespace
}  // namespace nnx
