// How float32 tensors cross the worker protocol (worker/PROTOCOL.md): {"shape": [..], "data": base64 of the
// raw little-endian float32 values}. Raw bytes, never decimal text, so a value arrives bit for bit.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

struct Float32Tensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

nlohmann::json float32_tensor_json(const std::vector<std::int64_t>& shape, std::span<const float> values);

// The tensor of a protocol object; WorkerError(malformed) naming `what` when the shape is not a list of
// sizes, the data is not base64, or its length is not 4 bytes per element of the shape.
Float32Tensor float32_tensor_from_json(const nlohmann::json& tensor, const char* what);

}  // namespace nnx
