// The native model FeedFwdNN (record-format §2): Linear layers over consecutive widths, every layer but
// the last followed by the activation (and dropout, a no-op in eval mode), raw logits out.
//
// Weights are drawn from ONE PyTorch-compatible generator seeded with the config's seed, parameter by
// parameter in PyTorch's order (layers.0.weight, layers.0.bias, ...), each randn(shape) * std in float32.
// `forward_eval` is the eval-mode forward in float32; parity compares the runtime against it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model_config.h"

namespace nnx {

struct Parameter {
  std::string name;                  // "layers.<i>.weight" [out, in] or "layers.<i>.bias" [out]
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

class FeedFwdNN {
 public:
  explicit FeedFwdNN(const ModelConfig& config);

  const ModelConfig& config() const { return config_; }
  const std::vector<Parameter>& parameters() const { return parameters_; }
  // SHA-256 over "<name>|float32|[a, b]|" + raw little-endian float32 bytes, per parameter in order.
  std::string weights_sha256() const;
  // Raw logits [batch, output_dim] for `input` [batch, input_dim], row-major.
  std::vector<float> forward_eval(std::span<const float> input, std::int64_t batch) const;

 private:
  ModelConfig config_;
  std::vector<Parameter> parameters_;
};

// A case input: torch.randn(shape, generator=Generator seeded with `seed`), float32, row-major.
std::vector<float> draw_input(const std::vector<std::int64_t>& shape, std::uint64_t seed);

// "[8, 4]" — a shape as Python prints a list.
std::string shape_text(const std::vector<std::int64_t>& shape);

}  // namespace nnx
