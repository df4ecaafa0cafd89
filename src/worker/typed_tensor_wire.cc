// Typed tensors on the worker protocol (typed_tensor_wire.h).
#include "worker/typed_tensor_wire.h"

#include <openssl/evp.h>

#include <cstring>
#include <limits>

#include "worker/worker_error.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

namespace wire = worker_protocol;

[[noreturn]] void refuse(const std::string& what, const std::string& why) {
  throw WorkerError(WorkerError::Kind::malformed, what + ": " + why);
}

std::vector<std::byte> base64_bytes(const std::string& text, const std::string& what) {
  if (text.size() % 4 != 0) refuse(what, "data is not base64");
  std::vector<std::byte> raw(text.size() / 4 * 3);
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(raw.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) refuse(what, "data is not base64");
  std::size_t length = static_cast<std::size_t>(n);
  for (std::size_t i = text.size(); i > 0 && text[i - 1] == '=' && length > 0; --i) --length;  // padding
  raw.resize(length);
  return raw;
}

}  // namespace

nlohmann::json tensor_json(const Tensor& tensor) {
  std::string data(4 * ((tensor.bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(data.data()),
                                reinterpret_cast<const unsigned char*>(tensor.bytes.data()),
                                static_cast<int>(tensor.bytes.size()));
  data.resize(static_cast<std::size_t>(n));
  return nlohmann::json{{wire::kName, tensor.name},
                        {wire::kDtype, std::string(dtype_name(tensor.dtype))},
                        {wire::kShape, tensor.shape},
                        {wire::kData, data}};
}

Tensor tensor_from_json(const nlohmann::json& tensor, const std::string& what, std::uint64_t max_bytes) {
  if (!tensor.is_object() || !tensor.contains(wire::kName) || !tensor[wire::kName].is_string() ||
      !tensor.contains(wire::kDtype) || !tensor[wire::kDtype].is_string() || !tensor.contains(wire::kShape) ||
      !tensor[wire::kShape].is_array() || !tensor.contains(wire::kData) || !tensor[wire::kData].is_string()) {
    refuse(what, "needs \"name\", \"dtype\", \"shape\" (a list of sizes) and \"data\" (base64)");
  }
  Tensor out;
  out.name = tensor[wire::kName].get<std::string>();
  const auto dtype = parse_dtype(tensor[wire::kDtype].get<std::string>());
  if (!dtype) refuse(what, "unknown dtype " + tensor[wire::kDtype].dump());
  out.dtype = *dtype;
  for (const auto& d : tensor[wire::kShape]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0) refuse(what, "a size is not a non-negative integer");
    out.shape.push_back(d.get<std::int64_t>());
  }
  const auto count = out.element_count();
  if (!count || static_cast<std::uint64_t>(*count) > max_bytes / dtype_size(out.dtype)) {
    refuse(what, "the tensor would hold more than " + std::to_string(max_bytes) + " bytes");
  }
  out.bytes = base64_bytes(tensor[wire::kData].get_ref<const std::string&>(), what);
  if (!out.consistent()) {
    refuse(what, std::to_string(out.bytes.size()) + " bytes for " + std::to_string(*count) + " " +
                     std::string(dtype_name(out.dtype)) + " values");
  }
  return out;
}

}  // namespace nnx
