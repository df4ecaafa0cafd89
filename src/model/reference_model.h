// The reference-model seam: what parity compares a runtime's outputs with (doc/record-format.md §2, §4
// parity; doc/architecture.md, "Seams, and where a change goes").
//
// A ReferenceModel is built from a record's model config and holds the deterministic parameters the
// exporter is given (in the order PyTorch names them) and their digest (`weights_sha256`, §2). `forward`
// returns the raw logits [batch, output_width] for a float32 input [batch, input_width], row-major, in eval
// mode; `forward_oracle` the same in float64. `make_reference_model` is the one place that chooses the
// implementation for a config's `net`.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/error.h"
#include "model/model_config.h"

namespace nnx {

struct Parameter {
  std::string name;                  // "layers.<i>.weight" [out, in] or "layers.<i>.bias" [out]
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

class ReferenceModel {
 public:
  virtual ~ReferenceModel() = default;

  virtual const ModelConfig& config() const = 0;
  virtual const std::vector<Parameter>& parameters() const = 0;
  // SHA-256 over "<name>|float32|[a, b]|" + raw little-endian float32 bytes, per parameter in order.
  virtual std::string weights_sha256() const = 0;
  virtual std::int64_t output_width() const = 0;
  virtual std::vector<float> forward(std::span<const float> input, std::int64_t batch) const = 0;
  // The oracle: the same network in float64 from the same float32 weights and input (no shared rounding
  // with a float32 forward), what parity's triangulation measures both sides against.
  virtual std::vector<double> forward_oracle(std::span<const float> input, std::int64_t batch) const = 0;
};

// The implementations (one .cc each).
std::unique_ptr<ReferenceModel> make_feed_fwd_reference(const ModelConfig& config);  // feedfwd.cc: native C++

// The reference for `config`. ConformanceError for a net no implementation covers.
inline std::unique_ptr<ReferenceModel> make_reference_model(const ModelConfig& config) {
  if (config.net == "feed_fwd") return make_feed_fwd_reference(config);
  throw ConformanceError("no reference model for net \"" + config.net + "\"");
}

}  // namespace nnx
