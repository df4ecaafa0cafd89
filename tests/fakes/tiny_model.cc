// Test fakes: the one-layer reference model (tiny_model.h).
#include "fakes/tiny_model.h"

#include <cstddef>
#include <utility>

namespace nnx::fakes {
namespace {

// y[r][o] = b[o] + sum_i W[o][i] x[r][i], accumulated in T.
template <typename T>
std::vector<T> linear(const std::vector<Parameter>& parameters, std::span<const float> input, std::int64_t batch) {
  const std::vector<float>& w = parameters[0].values;
  const std::vector<float>& b = parameters[1].values;
  const auto out = static_cast<std::size_t>(parameters[0].shape[0]);
  const auto in = static_cast<std::size_t>(parameters[0].shape[1]);
  std::vector<T> y(static_cast<std::size_t>(batch) * out);
  for (std::size_t r = 0; r < static_cast<std::size_t>(batch); ++r) {
    for (std::size_t o = 0; o < out; ++o) {
      T sum = static_cast<T>(b[o]);
      for (std::size_t i = 0; i < in; ++i) sum += static_cast<T>(w[o * in + i]) * static_cast<T>(input[r * in + i]);
      y[r * out + o] = sum;
    }
  }
  return y;
}

}  // namespace

TinyModel::TinyModel(std::int64_t input_dim, std::int64_t output_dim) {
  config_.input_dim = input_dim;
  config_.hidden_dims = {};
  config_.output_dim = output_dim;
  Parameter weight{"layers.0.weight", {output_dim, input_dim}, {}};
  for (std::int64_t k = 0; k < output_dim * input_dim; ++k) {
    weight.values.push_back(0.25f * static_cast<float>(k % 5 - 2));  // -0.5 .. 0.5
  }
  Parameter bias{"layers.0.bias", {output_dim}, {}};
  for (std::int64_t k = 0; k < output_dim; ++k) bias.values.push_back(0.5f * static_cast<float>(k));
  parameters_ = {std::move(weight), std::move(bias)};
}

std::vector<float> TinyModel::forward(std::span<const float> input, std::int64_t batch) const {
  return linear<float>(parameters_, input, batch);
}

std::vector<double> TinyModel::forward_oracle(std::span<const float> input, std::int64_t batch) const {
  return linear<double>(parameters_, input, batch);
}

}  // namespace nnx::fakes
