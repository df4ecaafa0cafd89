#include "worker/tensor_wire.h"

#include <openssl/evp.h>

#include <bit>
#include <cstring>
#include <string>

#include "worker/worker_error.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

namespace wire = worker_protocol;

static_assert(std::endian::native == std::endian::little, "the protocol carries little-endian float32");

[[noreturn]] void refuse(const char* what, const std::string& why) {
  throw WorkerError(WorkerError::Kind::malformed, std::string(what) + ": " + why);
}

}  // namespace

nlohmann::json float32_tensor_json(const std::vector<std::int64_t>& shape, std::span<const float> values) {
  const std::size_t size = values.size() * sizeof(float);
  std::string data(4 * ((size + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(data.data()),
                                reinterpret_cast<const unsigned char*>(values.data()), static_cast<int>(size));
  data.resize(static_cast<std::size_t>(n));
  return nlohmann::json{{wire::kShape, shape}, {wire::kData, data}};
}

Float32Tensor float32_tensor_from_json(const nlohmann::json& tensor, const char* what) {
  if (!tensor.is_object() || !tensor.contains(wire::kShape) || !tensor[wire::kShape].is_array() ||
      !tensor.contains(wire::kData) || !tensor[wire::kData].is_string()) {
    refuse(what, "needs \"shape\" (a list of sizes) and \"data\" (base64)");
  }
  Float32Tensor out;
  std::size_t count = 1;
  for (const auto& d : tensor[wire::kShape]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0 || d.get<std::int64_t>() > (std::int64_t{1} << 31)) {
      refuse(what, "a size is not an integer in range");
    }
    out.shape.push_back(d.get<std::int64_t>());
    count *= static_cast<std::size_t>(out.shape.back());
    if (count > (std::size_t{1} << 31)) refuse(what, "the shape holds too many values");
  }
  const std::string& text = tensor[wire::kData].get_ref<const std::string&>();
  if (text.size() % 4 != 0) refuse(what, "data is not base64");
  std::string raw(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(raw.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) refuse(what, "data is not base64");
  std::size_t length = static_cast<std::size_t>(n);
  for (std::size_t i = text.size(); i > 0 && text[i - 1] == '=' && length > 0; --i) --length;  // padding
  if (length != count * sizeof(float)) {
    refuse(what, std::to_string(length) + " bytes for " + std::to_string(count) + " float32 values");
  }
  out.values.resize(count);
  if (count) std::memcpy(out.values.data(), raw.data(), length);
  return out;
}

}  // namespace nnx
