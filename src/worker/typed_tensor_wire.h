// How named, typed tensors (base/tensor.h) cross the worker protocol for module profiles (worker/PROTOCOL.md,
// "module_export"): {"name", "dtype", "shape", "data": base64 of the raw little-endian bytes}. Raw bytes,
// never decimal text, so a value arrives bit for bit. The float32-only form of the feed-forward ops is
// tensor_wire.h.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/tensor.h"

namespace nnx {

nlohmann::json tensor_json(const Tensor& tensor);
// The tensor of a protocol object; WorkerError(malformed) naming `what` when a key is missing, the dtype is
// unknown, the shape is not a list of sizes, the data is not base64, its length is not what dtype and shape
// say, or it holds more than `max_bytes`.
Tensor tensor_from_json(const nlohmann::json& tensor, const std::string& what, std::uint64_t max_bytes);

}  // namespace nnx
