// The runtime seam's shared part (runtime.h): the float32 form of Session::run over the tensor form.
#include <string>

#include "runtime/runtime.h"

namespace nnx {

std::string runtime_type_name(DType dtype) {
  switch (dtype) {
    case DType::float32: return "float";
    case DType::float64: return "double";
    case DType::int64: return "int64";
    case DType::int32: return "int32";
    case DType::boolean: return "bool";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::int8: return "int8";
    case DType::uint8: return "uint8";
  }
  return "unknown";
}

std::vector<TensorOutput> Session::run_float(const std::string& input_name, std::span<const float> values,
                                             const std::vector<std::int64_t>& shape) {
  const Tensor input = Tensor::float32(input_name, shape, values);
  std::vector<TensorOutput> out;
  for (const Tensor& t : run(std::span<const Tensor>(&input, 1))) {
    TensorOutput o{t.name, runtime_type_name(t.dtype), t.shape, {}};
    if (t.dtype == DType::float32) {
      const auto floats = t.float32_values();
      o.values.assign(floats.begin(), floats.end());
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace nnx
