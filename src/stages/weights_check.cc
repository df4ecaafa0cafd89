#include "stages/weights_check.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "artifacts/artifact_path.h"
#include "base/error.h"
#include "model/feedfwd.h"
#include "onnx_file/onnx_model_file.h"

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

WeightsVerdict weights_in_model(const ReferenceModel& model, const Record& record,
                                const std::map<std::string, std::vector<std::byte>>& files) {
  const auto found = files.find(record.artifacts.model);
  if (found == files.end()) return {std::nullopt, "not checked: no verified model bytes"};
  const ExternalBytes external = [&files](const std::string& location) -> std::optional<std::span<const std::byte>> {
    const auto path = normalize_artifact_path(location);
    if (!path) return std::nullopt;
    const auto file = files.find(*path);
    if (file == files.end()) return std::nullopt;
    return std::span<const std::byte>(file->second);
  };
  OnnxModelFile onnx_model;
  try {
    onnx_model = read_onnx_model(found->second, external);
  } catch (const Error& e) {
    return {std::nullopt, std::string("not checked: ") + e.what()};
  }
  for (const auto& p : model.parameters()) {
    if (!stored(p, onnx_model.initializers)) {
      return {false, p.name + " " + shape_text(p.shape) + ": no initializer of " + record.artifacts.model +
                         " holds the model's values"};
    }
  }
  return {true, ""};
}

}  // namespace nnx
