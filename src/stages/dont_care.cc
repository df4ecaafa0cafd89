// Don't-care positions (dont_care.h).
#include "stages/dont_care.h"

#include <algorithm>
#include <cstring>

#include "base/module_record_vocabulary.h"

namespace nnx {

std::vector<HiddenOutput> hidden_outputs(const nlohmann::json& input_specs) {
  std::vector<HiddenOutput> out;
  if (!input_specs.is_array()) return out;
  for (const auto& spec : input_specs) {
    if (!spec.is_object() || !spec.contains(rf::input_key::kHides) || !spec[rf::input_key::kName].is_string()) continue;
    for (const auto& output : spec[rf::input_key::kHides]) {
      if (output.is_string()) out.push_back({output.get<std::string>(), spec[rf::input_key::kName].get<std::string>()});
    }
  }
  return out;
}

std::optional<std::int64_t> hide_positions(Tensor& tensor, const Tensor& mask) {
  if (tensor.shape.size() < mask.shape.size() ||
      !std::equal(mask.shape.begin(), mask.shape.end(), tensor.shape.begin())) {
    return std::nullopt;
  }
  const auto elements = tensor.element_count();
  const auto mask_elements = mask.element_count();
  if (!elements || !mask_elements || !tensor.consistent() || !mask.consistent()) return std::nullopt;
  if (*mask_elements == 0) return 0;
  const std::int64_t per_position = *elements / *mask_elements;  // the trailing axes' elements
  const std::size_t element_bytes = dtype_size(tensor.dtype);
  const std::vector<double> keep = mask.as_doubles();
  std::int64_t hidden = 0;
  for (std::int64_t p = 0; p < *mask_elements; ++p) {
    if (keep[static_cast<std::size_t>(p)] != 0.0) continue;
    const std::size_t first = static_cast<std::size_t>(p * per_position) * element_bytes;
    std::memset(tensor.bytes.data() + first, 0, static_cast<std::size_t>(per_position) * element_bytes);
    hidden += per_position;
  }
  return hidden;
}

}  // namespace nnx
