// Test fakes (not product code): a tiny ReferenceModel behind the reference-model seam
// (src/model/reference_model.h): one linear layer y = W x + b from `input_dim` to `output_dim` with fixed
// small weights, computed by plain loops in float32 (`forward`) and float64 (`forward_oracle`), so that a
// stage unit knows every output exactly and needs neither PyTorch nor BLAS. Its parameters are named as
// PyTorch names a one-layer feed_fwd's ("layers.0.weight" [out, in], "layers.0.bias" [out]).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/reference_model.h"

namespace nnx::fakes {

class TinyModel : public ReferenceModel {
 public:
  explicit TinyModel(std::int64_t input_dim = 4, std::int64_t output_dim = 2);

  const ModelConfig& config() const override { return config_; }
  const std::vector<Parameter>& parameters() const override { return parameters_; }
  std::string weights_sha256() const override { return std::string(64, 'a'); }
  std::int64_t output_width() const override { return config_.output_dim; }
  std::vector<float> forward(std::span<const float> input, std::int64_t batch) const override;
  std::vector<double> forward_oracle(std::span<const float> input, std::int64_t batch) const override;

 private:
  ModelConfig config_;
  std::vector<Parameter> parameters_;
};

}  // namespace nnx::fakes
