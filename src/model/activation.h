// The activations a FeedFwdNN may use, computed in float32 with PyTorch's default parameters:
// ELU(alpha=1), SELU, Tanh, ReLU, Softmax over the feature axis, Sigmoid, Softplus(beta=1, threshold=20),
// LeakyReLU(0.01). `apply_activation` works in place on one row of features; the float64 overload is the
// same formula in double precision (the oracle, model/reference_model.h).
#pragma once

#include <span>
#include <string>

namespace nnx {

enum class Activation { elu, selu, tanh, relu, softmax, sigmoid, softplus, leaky_relu };

// Throws std::invalid_argument naming an unknown activation.
Activation parse_activation(const std::string& name);
void apply_activation(Activation activation, std::span<float> row);
void apply_activation(Activation activation, std::span<double> row);

}  // namespace nnx
