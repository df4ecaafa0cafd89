#include "model/activation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nnx {

Activation parse_activation(const std::string& name) {
  if (name == "elu") return Activation::elu;
  if (name == "selu") return Activation::selu;
  if (name == "tanh") return Activation::tanh;
  if (name == "relu") return Activation::relu;
  if (name == "softmax") return Activation::softmax;
  if (name == "sigmoid") return Activation::sigmoid;
  if (name == "softplus") return Activation::softplus;
  if (name == "leaky_relu") return Activation::leaky_relu;
  throw std::invalid_argument("unknown activation \"" + name + "\"");
}

void apply_activation(Activation activation, std::span<float> row) {
  constexpr float kSeluAlpha = 1.6732632423543772848170429916717f;
  constexpr float kSeluScale = 1.0507009873554804934193349852946f;
  switch (activation) {
    case Activation::relu:
      for (float& v : row) v = v > 0.0f ? v : 0.0f;
      return;
    case Activation::leaky_relu:
      for (float& v : row) v = v > 0.0f ? v : v * 0.01f;
      return;
    case Activation::tanh:
      for (float& v : row) v = std::tanh(v);
      return;
    case Activation::sigmoid:
      for (float& v : row) v = 1.0f / (1.0f + std::exp(-v));
      return;
    case Activation::elu:
      for (float& v : row) v = v > 0.0f ? v : std::expm1(v);
      return;
    case Activation::selu:
      for (float& v : row) v = kSeluScale * (v > 0.0f ? v : kSeluAlpha * std::expm1(v));
      return;
    case Activation::softplus:
      for (float& v : row) v = v > 20.0f ? v : std::log1p(std::exp(v));
      return;
    case Activation::softmax: {
      if (row.empty()) return;
      const float m = *std::max_element(row.begin(), row.end());
      float sum = 0.0f;
      for (float& v : row) {
        v = std::exp(v - m);
        sum += v;
      }
      for (float& v : row) v /= sum;
      return;
    }
  }
}

}  // namespace nnx
