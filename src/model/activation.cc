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

namespace {

// One definition for both precisions: float32 (the native forward) and float64 (the oracle).
template <typename T>
void apply_in(Activation activation, std::span<T> row) {
  constexpr T kSeluAlpha = static_cast<T>(1.6732632423543772848170429916717L);
  constexpr T kSeluScale = static_cast<T>(1.0507009873554804934193349852946L);
  constexpr T kZero = 0, kOne = 1, kLeak = static_cast<T>(0.01L), kSoftplusThreshold = 20;
  switch (activation) {
    case Activation::relu:
      for (T& v : row) v = v > kZero ? v : kZero;
      return;
    case Activation::leaky_relu:
      for (T& v : row) v = v > kZero ? v : v * kLeak;
      return;
    case Activation::tanh:
      for (T& v : row) v = std::tanh(v);
      return;
    case Activation::sigmoid:
      for (T& v : row) v = kOne / (kOne + std::exp(-v));
      return;
    case Activation::elu:
      for (T& v : row) v = v > kZero ? v : std::expm1(v);
      return;
    case Activation::selu:
      for (T& v : row) v = kSeluScale * (v > kZero ? v : kSeluAlpha * std::expm1(v));
      return;
    case Activation::softplus:
      for (T& v : row) v = v > kSoftplusThreshold ? v : std::log1p(std::exp(v));
      return;
    case Activation::softmax: {
      if (row.empty()) return;
      const T m = *std::max_element(row.begin(), row.end());
      T sum = kZero;
      for (T& v : row) {
        v = std::exp(v - m);
        sum += v;
      }
      for (T& v : row) v /= sum;
      return;
    }
  }
}

}  // namespace

void apply_activation(Activation activation, std::span<float> row) { apply_in(activation, row); }
void apply_activation(Activation activation, std::span<double> row) { apply_in(activation, row); }

}  // namespace nnx
