#include "model/model_config.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "base/json_fields.h"
#include "base/limits.h"
#include "base/record_vocabulary.h"

namespace nnx {
namespace {

namespace config_key = rf::config_key;  // the model config's keys

constexpr std::array<const char*, 8> kActivations = {"elu",     "selu",    "tanh",     "relu",
                                                     "softmax", "sigmoid", "softplus", "leaky_relu"};

}  // namespace

bool is_allowed_activation(const std::string& name) {
  return std::find(kActivations.begin(), kActivations.end(), name) != kActivations.end();
}

std::vector<std::int64_t> ModelConfig::widths() const {
  std::vector<std::int64_t> w;
  w.push_back(input_dim);
  w.insert(w.end(), hidden_dims.begin(), hidden_dims.end());
  w.push_back(output_dim);
  return w;
}

std::int64_t ModelConfig::weight_count() const {
  const auto w = widths();
  std::int64_t total = 0;
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] < 0 || w[i + 1] < 0 || w[i] > limits::kMaxUnits || w[i + 1] > limits::kMaxUnits) {
      return limits::kMaxWeights + 1;
    }
    total += w[i] * w[i + 1] + w[i + 1];
    if (total > limits::kMaxWeights) return total;
  }
  return total;
}

std::int64_t ModelConfig::widest_layer() const {
  const auto w = widths();
  return *std::max_element(w.begin(), w.end());
}

json ModelConfig::to_json() const {
  return json{{config_key::kNet, net},
              {config_key::kInputDim, input_dim},
              {config_key::kHiddenDims, hidden_dims},
              {config_key::kOutputDim, output_dim},
              {config_key::kActivation, activation},
              {config_key::kDropout, dropout},
              {config_key::kWeights,
               {{config_key::kGenerator, weights.generator},
                {config_key::kSeed, weights.seed},
                {config_key::kDistribution, weights.distribution},
                {config_key::kStd, weights.std}}}};
}

std::vector<std::string> ModelConfig::problems() const {
  std::vector<std::string> p;
  if (net != "feed_fwd") p.push_back("model net must be \"feed_fwd\", not \"" + net + "\"");
  auto check_units = [&](const std::string& what, std::int64_t v) {
    if (v < 1 || v > limits::kMaxUnits) {
      p.push_back(what + " must be an integer in 1.." + std::to_string(limits::kMaxUnits) + ", not " +
                  std::to_string(v));
    }
  };
  check_units("model input_dim", input_dim);
  check_units("model output_dim", output_dim);
  if (static_cast<std::int64_t>(hidden_dims.size()) > limits::kMaxHiddenLayers) {
    p.push_back("model has " + std::to_string(hidden_dims.size()) + " hidden layers; at most " +
                std::to_string(limits::kMaxHiddenLayers) + " are allowed");
  }
  for (std::size_t i = 0; i < hidden_dims.size(); ++i) {
    check_units("model hidden_dims[" + std::to_string(i) + "]", hidden_dims[i]);
  }
  if (p.empty() && weight_count() > limits::kMaxWeights) {
    p.push_back("model has " + std::to_string(weight_count()) + " weights; at most 2^24 (" +
                std::to_string(limits::kMaxWeights) + ") are allowed");
  }
  if (!is_allowed_activation(activation)) {
    p.push_back("model activation \"" + activation +
                "\" is not one of elu, selu, tanh, relu, softmax, sigmoid, softplus, leaky_relu");
  }
  if (!std::isfinite(dropout) || dropout < 0.0 || dropout >= 1.0) {
    p.push_back("model dropout must be finite with 0 <= dropout < 1");
  }
  if (weights.generator != "torch.Generator") {
    p.push_back("weights generator must be \"torch.Generator\", not \"" + weights.generator + "\"");
  }
  if (weights.distribution != "normal") {
    p.push_back("weights distribution must be \"normal\", not \"" + weights.distribution + "\"");
  }
  if (weights.seed >= limits::kMaxSeed) p.push_back("weights seed must lie in [0, 2^63)");
  if (!std::isfinite(weights.std) || weights.std <= 0.0) p.push_back("weights std must be finite and > 0");
  return p;
}

ModelConfig model_config_from_json(const json& value, std::vector<std::string>& problems) {
  ModelConfig c;
  FieldReader r(value, "config", problems);
  r.allow_extra(config_key::kWeightsSha256);
  r.string(config_key::kNet, c.net);
  r.integer(config_key::kInputDim, c.input_dim);
  r.integer_list(config_key::kHiddenDims, c.hidden_dims);
  r.integer(config_key::kOutputDim, c.output_dim);
  r.string(config_key::kActivation, c.activation);
  r.number(config_key::kDropout, c.dropout);
  if (const json* w = r.object(config_key::kWeights)) {
    FieldReader wr(*w, "config.weights", problems);
    wr.string(config_key::kGenerator, c.weights.generator);
    wr.seed(config_key::kSeed, c.weights.seed);
    wr.string(config_key::kDistribution, c.weights.distribution);
    wr.number(config_key::kStd, c.weights.std);
    wr.finish();
  }
  r.finish();
  return c;
}

}  // namespace nnx
