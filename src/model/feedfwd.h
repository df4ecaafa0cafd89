// The native model FeedFwdNN, the C++ ReferenceModel of `feed_fwd` (doc/record-format.md §2): Linear layers over
// consecutive widths, every layer but the last followed by the activation (and dropout, a no-op in eval
// mode), raw logits out.
//
// Weights are drawn from ONE PyTorch-compatible generator seeded with the config's seed, parameter by
// parameter in PyTorch's order (layers.0.weight, layers.0.bias, ...), each randn(shape) * std in float32.
// `forward_eval` is the eval-mode forward in float32; parity compares the runtime against it.
//
// The forward is what torch.nn.Linear computes on the CPU (addmm): each layer's output rows start as the
// bias, and a float32 GEMM (OpenBLAS cblas_sgemm, beta = 1) adds input x weight^T to them; then the
// activation. Everything stays float32 (no double accumulation, no reordering of our own), as in PyTorch
// and in ONNX Runtime's Gemm (bias broadcast into the output, then GEMM with beta = 1). OpenBLAS runs on
// ONE thread, like the runtime's session (intra-op threads 1). Rows are processed in blocks of
// kForwardRowBlock through all layers, so the working memory is two blocks of the widest layer, never
// batch x widest.
//
// OpenBLAS (Debian's libopenblas0, any variant: pthread, openmp or serial) is opened on first use with
// dlopen, so the commands that run no forward (validate, verify) never pay its start-up (its thread pool
// and CPU detection: about 1.8 ms per process on the benchmark machine). The copy an installed wheel bundles
// is tried first: _libs/libopenblas.so.0 beside, or one folder above, the file this code was loaded from
// (nnx/_core*.so, nnx/_bin/nnx-conformance; doc/install.md); then the loader's libopenblas.so.0, libopenblas.so.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "model/reference_model.h"

namespace nnx {

class FeedFwdNN : public ReferenceModel {
 public:
  explicit FeedFwdNN(const ModelConfig& config);

  const ModelConfig& config() const override { return config_; }
  const std::vector<Parameter>& parameters() const override { return parameters_; }
  std::string weights_sha256() const override;
  std::int64_t output_width() const override { return config_.output_dim; }
  std::vector<float> forward(std::span<const float> input, std::int64_t batch) const override {
    return forward_eval(input, batch);
  }
  // feedfwd_oracle.cc
  std::vector<double> forward_oracle(std::span<const float> input, std::int64_t batch) const override;
  // Raw logits [batch, output_dim] for `input` [batch, input_dim], row-major.
  std::vector<float> forward_eval(std::span<const float> input, std::int64_t batch) const;

 private:
  ModelConfig config_;
  std::vector<Parameter> parameters_;
};

// Rows per block of the forward (see above).
inline constexpr std::int64_t kForwardRowBlock = 512;

// The BLAS the forward uses, opened on first call; throws std::runtime_error naming the library when it
// cannot be loaded. `threads` is openblas_get_num_threads() after the forward pinned it to 1.
struct ForwardBlasInfo {
  std::string library;  // the dlopen name that loaded
  std::string config;   // openblas_get_config(), e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX ..."
  std::string core;     // openblas_get_corename()
  int threads = 0;
};
ForwardBlasInfo forward_blas_info();

// "[8, 4]" — a shape as Python prints a list.
std::string shape_text(const std::vector<std::int64_t>& shape);

}  // namespace nnx
