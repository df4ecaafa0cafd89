// The native model's configuration (doc/record-format.md §2): a feed-forward net and its weight generator.
//
// `ModelConfig::to_json` writes the record's `config` minus `weights_sha256`; `model_config_from_json`
// rebuilds one from a record, naming every problem (types are strict: a boolean or 2.0 is not an integer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

using json = nlohmann::json;

struct WeightInit {
  std::string generator = "torch.Generator";
  std::uint64_t seed = 0;
  std::string distribution = "normal";
  double std = 0.5;
};

struct ModelConfig {
  std::string net = "feed_fwd";
  std::int64_t input_dim = 4;
  std::vector<std::int64_t> hidden_dims = {8};
  std::int64_t output_dim = 2;
  std::string activation = "relu";
  double dropout = 0.0;
  WeightInit weights;

  // Consecutive layer widths: input_dim, hidden..., output_dim.
  std::vector<std::int64_t> widths() const;
  // Sum of a*b+b over consecutive widths (computed without overflow for widths within the limits).
  std::int64_t weight_count() const;
  std::int64_t widest_layer() const;

  json to_json() const;
  // Problems with this configuration against doc/record-format.md §1/§2 limits; empty when valid.
  std::vector<std::string> problems() const;
};

bool is_allowed_activation(const std::string& name);

// Rebuilds a config from JSON (`weights_sha256` is ignored here); appends each key or type problem to
// `problems`. Limits are not checked here: call `problems()` on the result.
ModelConfig model_config_from_json(const json& value, std::vector<std::string>& problems);

}  // namespace nnx
