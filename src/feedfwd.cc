#include "feedfwd.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "activation.h"
#include "sha256.h"
#include "torch_random.h"

static_assert(std::endian::native == std::endian::little, "weights are hashed as little-endian float32");

namespace nnx {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

FeedFwdNN::FeedFwdNN(const ModelConfig& config) : config_(config) {
  const auto widths = config_.widths();
  TorchGenerator generator(config_.weights.seed);
  const float std_value = static_cast<float>(config_.weights.std);
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    const std::string prefix = "layers." + std::to_string(i);
    Parameter weight{prefix + ".weight", {widths[i + 1], widths[i]}, {}};
    Parameter bias{prefix + ".bias", {widths[i + 1]}, {}};
    for (Parameter* p : {&weight, &bias}) {
      std::int64_t n = 1;
      for (auto d : p->shape) n *= d;
      p->values.resize(static_cast<std::size_t>(n));
      generator.randn(p->values);
      for (float& v : p->values) v = v * std_value;
      parameters_.push_back(std::move(*p));
    }
  }
}

std::string FeedFwdNN::weights_sha256() const {
  Sha256 h;
  for (const auto& p : parameters_) {
    h.update(p.name + "|float32|" + shape_text(p.shape) + "|");
    h.update(p.values.data(), p.values.size() * sizeof(float));
  }
  return h.hex_digest();
}

std::vector<float> FeedFwdNN::forward_eval(std::span<const float> input, std::int64_t batch) const {
  const auto widths = config_.widths();
  if (batch < 0 || static_cast<std::int64_t>(input.size()) != batch * widths.front()) {
    throw std::invalid_argument("forward_eval: input holds " + std::to_string(input.size()) +
                                " values, not batch x input_dim");
  }
  const Activation activation = parse_activation(config_.activation);
  std::vector<float> x(input.begin(), input.end());
  std::vector<float> y;
  const std::size_t layers = widths.size() - 1;
  for (std::size_t l = 0; l < layers; ++l) {
    const auto in = static_cast<std::size_t>(widths[l]);
    const auto out = static_cast<std::size_t>(widths[l + 1]);
    const float* w = parameters_[2 * l].values.data();
    const float* b = parameters_[2 * l + 1].values.data();
    y.assign(static_cast<std::size_t>(batch) * out, 0.0f);
    for (std::size_t r = 0; r < static_cast<std::size_t>(batch); ++r) {
      const float* xr = x.data() + r * in;
      float* yr = y.data() + r * out;
      for (std::size_t o = 0; o < out; ++o) {
        const float* wo = w + o * in;
        float acc = 0.0f;
        for (std::size_t k = 0; k < in; ++k) acc += xr[k] * wo[k];
        yr[o] = acc + b[o];
      }
      if (l + 1 < layers) apply_activation(activation, std::span<float>(yr, out));
    }
    x.swap(y);
  }
  return x;
}

std::vector<float> draw_input(const std::vector<std::int64_t>& shape, std::uint64_t seed) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<float> values(static_cast<std::size_t>(n));
  TorchGenerator generator(seed);
  generator.randn(values);
  return values;
}

}  // namespace nnx
