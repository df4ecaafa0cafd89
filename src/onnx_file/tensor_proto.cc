#include "onnx_file/tensor_proto.h"

#include <array>
#include <climits>
#include <cstring>
#include <limits>
#include <optional>

#include <onnx.pb.h>

#include "base/error.h"
#include "base/json_python.h"
#include "onnx_file/onnx_tensor.h"

namespace nnx {
namespace {

// A data_type as onnx.proto spells it ("BFLOAT16 (16)"), or its number when onnx.proto has no such value.
std::string type_name(std::int32_t type) {
  if (!onnx::TensorProto_DataType_IsValid(type)) return std::to_string(type);
  return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(type)) + " (" +
         std::to_string(type) + ")";
}

// The dims as a message shows them: the first eight, then how many more.
std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size() && i < 8; ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  if (dims.size() > 8) text += ", ... " + std::to_string(dims.size() - 8) + " more";
  return text + "]";
}

// The element count of `dims`, each non-negative, whose bytes (count * element size) are at most
// `max_bytes`; checked in that order, before anything is allocated.
std::uint64_t checked_count(const std::vector<std::int64_t>& dims, std::size_t element_size,
                            const std::string& what, std::uint64_t max_bytes) {
  for (const std::int64_t dim : dims) {
    if (dim < 0) refuse_tensor(what, "negative dim " + std::to_string(dim) + " in dims " + dims_text(dims));
  }
  std::uint64_t count = 1;
  for (const std::int64_t dim : dims) count = dim == 0 ? 0 : count;  // a zero dim: no element, whatever else
  for (const std::int64_t dim : dims) {
    const auto d = static_cast<std::uint64_t>(dim);
    if (count != 0 && count > std::numeric_limits<std::uint64_t>::max() / d) {
      refuse_tensor(what, "dims " + dims_text(dims) + " hold more elements than a size can count");
    }
    count *= d;
  }
  if (count > std::numeric_limits<std::uint64_t>::max() / element_size) {
    refuse_tensor(what, "dims " + dims_text(dims) + " hold more elements than a size can count");
  }
  if (count * element_size > max_bytes) {
    refuse_tensor(what, "dims " + dims_text(dims) + " need " + std::to_string(count * element_size) +
                            " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  return count;
}

// The typed value fields of a TensorProto and how many values each holds.
struct TypedField {
  const char* name;
  int size;
};
std::array<TypedField, 6> typed_fields(const onnx::TensorProto& t) {
  return {{{"float_data", t.float_data_size()},
           {"int32_data", t.int32_data_size()},
           {"string_data", t.string_data_size()},
           {"int64_data", t.int64_data_size()},
           {"double_data", t.double_data_size()},
           {"uint64_data", t.uint64_data_size()}}};
}

// The typed field onnx.proto keeps a dtype's values in when raw_data is not used.
const char* field_of(DType dtype) {
  switch (dtype) {
    case DType::float32: return "float_data";
    case DType::float64: return "double_data";
    case DType::int64: return "int64_data";
    case DType::int32:
    case DType::boolean:
    case DType::float16:   // the 16 bits of each value (onnx.proto)
    case DType::bfloat16:
    case DType::int8:
    case DType::uint8: return "int32_data";
  }
  return "";
}

// Refuses values in any typed field but `allowed` (nullptr: none may hold values).
void refuse_other_fields(const onnx::TensorProto& t, const char* allowed, const std::string& what,
                         const std::string& holder) {
  for (const TypedField& field : typed_fields(t)) {
    if (field.size != 0 && (!allowed || std::strcmp(field.name, allowed) != 0)) {
      refuse_tensor(what, std::string(field.name) + " holds values beside " + holder + " of a " +
                              type_name(t.data_type()) + " tensor");
    }
  }
}

// The values of a repeated field as little-endian elements of type To (the host is little-endian:
// base/tensor.cc).
template <typename To, typename Field>
std::vector<std::byte> elements(const Field& field) {
  std::vector<std::byte> out(static_cast<std::size_t>(field.size()) * sizeof(To));
  for (int i = 0; i < field.size(); ++i) {
    const auto value = static_cast<To>(field.Get(i));
    std::memcpy(out.data() + static_cast<std::size_t>(i) * sizeof(To), &value, sizeof(To));
  }
  return out;
}

// int32_data's values as elements of a narrower type, each refused unless in [low, high].
template <typename To, typename Field>
std::vector<std::byte> narrowed(const Field& field, std::int32_t low, std::int32_t high, const char* kind,
                                const std::string& what) {
  for (const std::int32_t value : field) {
    if (value < low || value > high) {
      refuse_tensor(what, std::string(kind) + " value " + std::to_string(value) + " is outside " + std::to_string(low) +
                              ".." + std::to_string(high));
    }
  }
  return elements<To>(field);
}

// The values of the typed field for `dtype`, exactly `count` of them.
std::vector<std::byte> typed_values(const onnx::TensorProto& t, DType dtype, std::uint64_t count,
                                    const std::string& what) {
  const char* name = field_of(dtype);
  refuse_other_fields(t, name, what, name);
  int held = 0;
  for (const TypedField& field : typed_fields(t)) held = std::strcmp(field.name, name) == 0 ? field.size : held;
  if (static_cast<std::uint64_t>(held) != count) {
    refuse_tensor(what, std::string(name) + " holds " + std::to_string(held) + " values but its dims need " +
                            std::to_string(count));
  }
  switch (dtype) {
    case DType::float32: return elements<float>(t.float_data());
    case DType::float64: return elements<double>(t.double_data());
    case DType::int64: return elements<std::int64_t>(t.int64_data());
    case DType::int32: return elements<std::int32_t>(t.int32_data());
    case DType::boolean:
      for (const std::int32_t value : t.int32_data()) {
        if (value != 0 && value != 1) {
          refuse_tensor(what, "bool value " + std::to_string(value) + " is neither 0 nor 1");
        }
      }
      return elements<std::uint8_t>(t.int32_data());
    case DType::float16: return narrowed<std::uint16_t>(t.int32_data(), 0, 0xffff, "float16 bit pattern", what);
    case DType::bfloat16: return narrowed<std::uint16_t>(t.int32_data(), 0, 0xffff, "bfloat16 bit pattern", what);
    case DType::int8: return narrowed<std::int8_t>(t.int32_data(), -128, 127, "int8", what);
    case DType::uint8: return narrowed<std::uint8_t>(t.int32_data(), 0, 255, "uint8", what);
  }
  return {};
}

void require_booleans(const std::vector<std::byte>& bytes, const std::string& what) {
  for (const std::byte b : bytes) {
    if (b != std::byte{0} && b != std::byte{1}) {
      refuse_tensor(what, "bool byte " + std::to_string(std::to_integer<int>(b)) + " is neither 0 nor 1");
    }
  }
}

onnx::TensorProto parse(std::span<const std::byte> bytes, const std::string& what) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    refuse_tensor(what, std::to_string(bytes.size()) + " bytes, more than protobuf's 2 GiB limit");
  }
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    refuse_tensor(what, "its bytes do not parse as onnx.TensorProto");
  }
  return proto;
}

}  // namespace

std::string encode_tensor_proto(const Tensor& tensor) {
  const std::string what = "tensor " + display_json(json(tensor.name));
  if (!tensor.consistent()) {
    refuse_tensor(what, std::to_string(tensor.bytes.size()) + " bytes are not what " +
                            std::string(dtype_name(tensor.dtype)) + " and shape " + dims_text(tensor.shape) + " need");
  }
  if (tensor.dtype == DType::boolean) require_booleans(tensor.bytes, what);
  onnx::TensorProto proto;
  for (const std::int64_t dim : tensor.shape) proto.add_dims(dim);
  proto.set_data_type(onnx_element_type(tensor.dtype));
  proto.set_name(tensor.name);
  proto.set_raw_data(std::string(reinterpret_cast<const char*>(tensor.bytes.data()), tensor.bytes.size()));
  std::string out;
  if (!proto.SerializeToString(&out)) refuse_tensor(what, "does not serialise as onnx.TensorProto (over 2 GiB?)");
  return out;
}

namespace {

// The tensor `proto` holds (decode_tensor_proto's rules), its raw_data let go as soon as it is copied out.
Tensor decode_parsed(onnx::TensorProto& proto, const std::string& what, std::uint64_t max_bytes) {
  if (is_external(proto)) refuse_tensor(what, "its data is external (data_location EXTERNAL)");
  if (proto.has_segment()) refuse_tensor(what, "it is a segment of a larger tensor");
  const std::optional<DType> dtype = dtype_of_onnx_element_type(proto.data_type());
  if (!dtype) refuse_tensor(what, "unsupported data_type " + type_name(proto.data_type()));
  Tensor out{proto.name(), *dtype, {proto.dims().begin(), proto.dims().end()}, {}};
  const std::size_t size = dtype_size(*dtype);
  const std::uint64_t count = checked_count(out.shape, size, what, max_bytes);
  if (proto.has_raw_data()) {
    refuse_other_fields(proto, nullptr, what, "raw_data");
    const std::string& raw = proto.raw_data();
    if (raw.size() != count * size) {
      refuse_tensor(what, "raw_data holds " + std::to_string(raw.size()) + " bytes but its dims need " +
                              std::to_string(count) + " elements of " + std::to_string(size) + " bytes");
    }
    const auto* first = reinterpret_cast<const std::byte*>(raw.data());
    out.bytes.assign(first, first + raw.size());
    proto.clear_raw_data();
    if (*dtype == DType::boolean) require_booleans(out.bytes, what);
  } else {
    out.bytes = typed_values(proto, *dtype, count, what);
  }
  return out;
}

}  // namespace

Tensor decode_tensor_proto(std::span<const std::byte> bytes, const std::string& what, std::uint64_t max_bytes) {
  onnx::TensorProto proto = parse(bytes, what);
  return decode_parsed(proto, what, max_bytes);
}

Tensor decode_tensor_proto(std::vector<std::byte>&& bytes, const std::string& what, std::uint64_t max_bytes) {
  onnx::TensorProto proto = parse(bytes, what);
  std::vector<std::byte>().swap(bytes);  // the file's bytes let go before the values are copied out of the message
  return decode_parsed(proto, what, max_bytes);
}

}  // namespace nnx
