#include "stages/weights_check.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "model/feedfwd.h"

namespace nnx {
namespace {

bool same_floats(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// `values` [rows, cols] transposed to [cols, rows].
std::vector<float> transposed(const std::vector<float>& values, std::int64_t rows, std::int64_t cols) {
  std::vector<float> out(values.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) out[c * rows + r] = values[r * cols + c];
  }
  return out;
}

// True when an initializer holds `p`: by name with its shape and values, else any float initializer with
// the same values in the same or (2-D) the transposed layout.
bool stored(const Parameter& p, const std::vector<OnnxInitializer>& initializers) {
  for (const auto& init : initializers) {
    if (init.name == p.name && init.dims == p.shape && same_floats(init.values, p.values)) return true;
  }
  const std::vector<std::int64_t> flipped(p.shape.rbegin(), p.shape.rend());
  for (const auto& init : initializers) {
    if (init.data_type != kOnnxFloat || init.values.size() != p.values.size()) continue;
    if (init.dims == p.shape && same_floats(init.values, p.values)) return true;
    if (p.shape.size() == 2 && init.dims == flipped &&
        same_floats(init.values, transposed(p.values, p.shape[0], p.shape[1]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

WeightsVerdict weights_in_model(const ReferenceModel& model, const OnnxModelFile& onnx_model) {
  for (const auto& p : model.parameters()) {
    if (!stored(p, onnx_model.initializers)) {
      return {false, p.name + " " + shape_text(p.shape) + ": no initializer of model.onnx holds the model's values"};
    }
  }
  return {true, ""};
}

}  // namespace nnx
