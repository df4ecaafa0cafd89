#include "onnx_file/onnx_tensor.h"

#include <charconv>
#include <cstring>
#include <limits>
#include <span>

#include "base/error.h"
#include "base/json_python.h"

namespace nnx {

void refuse_tensor(const std::string& what, const std::string& problem) {
  throw ConformanceError(what + ": " + problem);
}

namespace {

// A non-negative decimal number as ONNX writes offset and length (digits only, at most 2^64-1).
std::uint64_t decimal(const std::string& text, const std::string& what, const std::string& key) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || text.front() < '0' || text.front() > '9' || error != std::errc() || stop != end) {
    refuse_tensor(what, "external data " + key + " " + display_json(json(text)) +
                            " is not a non-negative decimal number");
  }
  return value;
}

// The product of the dims, or ConformanceError for a negative dim or a product beyond 2^62 elements.
std::uint64_t element_count(const onnx::TensorProto& tensor, const std::string& what) {
  constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 62;
  std::uint64_t count = 1;
  for (const std::int64_t dim : tensor.dims()) {
    if (dim < 0) refuse_tensor(what, "negative dim " + std::to_string(dim));
    if (dim != 0 && count > kMaxElements / static_cast<std::uint64_t>(dim)) refuse_tensor(what, "too many elements");
    count *= static_cast<std::uint64_t>(dim);
  }
  return count;
}

// The size in bytes of one element of a whole-byte fixed-width type, or 0 when the type has none (STRING,
// sub-byte types, types this reader does not know).
std::uint64_t element_bytes(std::int32_t data_type) {
  switch (data_type) {
    case onnx::TensorProto::UINT8: case onnx::TensorProto::INT8: case onnx::TensorProto::BOOL:
    case onnx::TensorProto::FLOAT8E4M3FN: case onnx::TensorProto::FLOAT8E4M3FNUZ:
    case onnx::TensorProto::FLOAT8E5M2: case onnx::TensorProto::FLOAT8E5M2FNUZ:
    case onnx::TensorProto::FLOAT8E8M0:
      return 1;
    case onnx::TensorProto::UINT16: case onnx::TensorProto::INT16: case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      return 2;
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32:
      return 4;
    case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX64:
      return 8;
    case onnx::TensorProto::COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

// The bytes holding `count` elements must be exactly count * element size (when the type has one).
void require_size(std::uint64_t held, std::uint64_t count, std::int32_t data_type, const std::string& what,
                  const std::string& where) {
  const std::uint64_t size = element_bytes(data_type);
  if (size == 0) return;
  if (count > std::numeric_limits<std::uint64_t>::max() / size || held != count * size) {
    refuse_tensor(what, where + " holds " + std::to_string(held) + " bytes but its dims need " + std::to_string(count) +
                            " elements of " + std::to_string(size) + " bytes");
  }
}

// The slice of the external file the reference names, checked against the file's size.
std::span<const std::byte> external_slice(const ExternalReference& ref, const ExternalBytes& external,
                                          const std::string& what) {
  const auto file = external ? external(ref.location) : std::nullopt;
  if (!file) refuse_tensor(what, "external data file " + display_json(json(ref.location)) + " is absent");
  const std::uint64_t size = file->size();
  if (ref.offset > size) {
    refuse_tensor(what, "external data offset " + std::to_string(ref.offset) + " is beyond the end of " +
                            display_json(json(ref.location)) + " (" + std::to_string(size) + " bytes)");
  }
  const std::uint64_t length = ref.length.value_or(size - ref.offset);
  if (length > size - ref.offset) {
    refuse_tensor(what, "external data offset " + std::to_string(ref.offset) + " + length " + std::to_string(length) +
                            " is beyond the end of " + display_json(json(ref.location)) + " (" + std::to_string(size) +
                            " bytes)");
  }
  return file->subspan(static_cast<std::size_t>(ref.offset), static_cast<std::size_t>(length));
}

// Little-endian IEEE 754 binary32 values, whatever the host's byte order; `bytes` holds a multiple of 4.
std::vector<float> little_endian_floats(std::span<const std::byte> bytes) {
  std::vector<float> values(bytes.size() / 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t bits = 0;
    for (int b = 3; b >= 0; --b) bits = (bits << 8) | std::to_integer<std::uint32_t>(bytes[4 * i + b]);
    std::memcpy(&values[i], &bits, sizeof bits);
  }
  return values;
}

}  // namespace

bool is_external(const onnx::TensorProto& tensor) {
  return tensor.has_data_location() && tensor.data_location() == onnx::TensorProto::EXTERNAL;
}

ExternalReference external_reference(const onnx::TensorProto& tensor, const std::string& what) {
  ExternalReference ref;
  bool has_location = false, has_offset = false, has_length = false;
  for (const auto& entry : tensor.external_data()) {
    const std::string& key = entry.key();
    bool* seen = key == "location" ? &has_location : key == "offset" ? &has_offset
                                                   : key == "length" ? &has_length : nullptr;
    if (!seen) continue;  // "checksum" and keys ONNX may add later
    if (*seen) refuse_tensor(what, "external data key " + display_json(json(key)) + " is given twice");
    *seen = true;
    if (key == "location") ref.location = entry.value();
    if (key == "offset") ref.offset = decimal(entry.value(), what, key);
    if (key == "length") ref.length = decimal(entry.value(), what, key);
  }
  if (!has_location) refuse_tensor(what, "external data without a location");
  return ref;
}

OnnxInitializer read_initializer(const onnx::TensorProto& tensor, const ExternalBytes& external, bool float_values) {
  const std::string what = "initializer " + display_json(json(tensor.name()));
  OnnxInitializer out{tensor.name(), {tensor.dims().begin(), tensor.dims().end()}, tensor.data_type(), {}, {}};
  const std::uint64_t count = element_count(tensor, what);
  const bool is_float = tensor.data_type() == kOnnxFloat;
  if (is_external(tensor)) {
    if (tensor.has_raw_data()) refuse_tensor(what, "external data and raw_data both given");
    const ExternalReference ref = external_reference(tensor, what);
    out.external_location = ref.location;
    const auto bytes = external_slice(ref, external, what);
    require_size(bytes.size(), count, tensor.data_type(), what,
                 "its external data in " + display_json(json(ref.location)));
    if (is_float && float_values) out.values = little_endian_floats(bytes);
  } else if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    require_size(raw.size(), count, tensor.data_type(), what, "raw_data");
    if (is_float && float_values) out.values = little_endian_floats(std::as_bytes(std::span(raw.data(), raw.size())));
  } else if (is_float) {
    if (static_cast<std::uint64_t>(tensor.float_data_size()) != count) {
      refuse_tensor(what, "float_data holds " + std::to_string(tensor.float_data_size()) +
                              " values but its dims need " + std::to_string(count));
    }
    if (float_values) out.values.assign(tensor.float_data().begin(), tensor.float_data().end());
  }
  return out;
}

}  // namespace nnx
