#include "base/tensor.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/error.h"

namespace nnx {
namespace {

static_assert(std::endian::native == std::endian::little, "tensor bytes are little-endian");

struct DTypeFacts {
  DType dtype;
  std::string_view name;
  std::size_t size;
  std::int32_t onnx_type;  // onnx.proto TensorProto.DataType
};

constexpr std::array<DTypeFacts, 9> kDTypes = {{
    {DType::float32, "float32", 4, 1},
    {DType::float64, "float64", 8, 11},
    {DType::int64, "int64", 8, 7},
    {DType::int32, "int32", 4, 6},
    {DType::boolean, "bool", 1, 9},
    {DType::float16, "float16", 2, 10},
    {DType::bfloat16, "bfloat16", 2, 16},
    {DType::int8, "int8", 1, 3},
    {DType::uint8, "uint8", 1, 2},
}};

const DTypeFacts& facts(DType dtype) {
  for (const auto& f : kDTypes) {
    if (f.dtype == dtype) return f;
  }
  throw ConformanceError("unknown tensor element type");
}

template <typename T>
void widen_into(const std::vector<std::byte>& bytes, std::vector<double>& out) {
  const std::size_t count = bytes.size() / sizeof(T);
  out.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(value);
  }
}

// IEEE binary16 bits as double, exactly (subnormals, infinities and NaN included).
double half_to_double(std::uint16_t bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
  double value = 0.0;
  if (exponent == 0) value = std::ldexp(fraction, -24);
  else if (exponent == 0x1f) value = fraction ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else value = std::ldexp(fraction + 1024, exponent - 25);
  return sign ? -value : value;
}

void widen_halves(const std::vector<std::byte>& bytes, bool brain, std::vector<double>& out) {
  const std::size_t count = bytes.size() / 2;
  out.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint16_t bits;
    std::memcpy(&bits, bytes.data() + i * 2, 2);
    if (!brain) {
      out[i] = half_to_double(bits);
      continue;
    }
    const std::uint32_t wide = std::uint32_t{bits} << 16;  // bfloat16: the upper half of a float32
    float value;
    std::memcpy(&value, &wide, sizeof value);
    out[i] = value;
  }
}

}  // namespace

std::string_view dtype_name(DType dtype) { return facts(dtype).name; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& f : kDTypes) {
    if (f.name == name) return f.dtype;
  }
  return std::nullopt;
}

std::size_t dtype_size(DType dtype) { return facts(dtype).size; }

std::int32_t onnx_element_type(DType dtype) { return facts(dtype).onnx_type; }

std::optional<DType> dtype_of_onnx_element_type(std::int32_t type) {
  for (const auto& f : kDTypes) {
    if (f.onnx_type == type) return f.dtype;
  }
  return std::nullopt;
}

std::optional<std::int64_t> Tensor::element_count() const {
  if (std::any_of(shape.begin(), shape.end(), [](std::int64_t size) { return size < 0; })) return std::nullopt;
  // A zero size: no element, whatever the other sizes (as ONNX's readers count; onnx_file/tensor_proto.cc).
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  std::int64_t count = 1;
  for (const std::int64_t size : shape) {
    if (count > std::numeric_limits<std::int64_t>::max() / size) return std::nullopt;
    count *= size;
  }
  return count;
}

bool Tensor::consistent() const {
  const auto count = element_count();
  if (!count) return false;
  const auto size = dtype_size(dtype);
  return static_cast<std::uint64_t>(*count) <= std::numeric_limits<std::uint64_t>::max() / size &&
         bytes.size() == static_cast<std::uint64_t>(*count) * size;
}

std::vector<double> Tensor::as_doubles() const {
  std::vector<double> out;
  switch (dtype) {
    case DType::float32: widen_into<float>(bytes, out); break;
    case DType::float64: widen_into<double>(bytes, out); break;
    case DType::int64: widen_into<std::int64_t>(bytes, out); break;
    case DType::int32: widen_into<std::int32_t>(bytes, out); break;
    case DType::boolean: widen_into<std::uint8_t>(bytes, out); break;
    case DType::float16: widen_halves(bytes, false, out); break;
    case DType::bfloat16: widen_halves(bytes, true, out); break;
    case DType::int8: widen_into<std::int8_t>(bytes, out); break;
    case DType::uint8: widen_into<std::uint8_t>(bytes, out); break;
  }
  return out;
}

namespace {

template <typename T>
double element_of(const std::vector<std::byte>& bytes, std::size_t i) {
  T value;
  std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
  return static_cast<double>(value);
}

double half_element(const std::vector<std::byte>& bytes, std::size_t i, bool brain) {
  std::uint16_t bits;
  std::memcpy(&bits, bytes.data() + i * 2, 2);
  if (!brain) return half_to_double(bits);
  const std::uint32_t wide = std::uint32_t{bits} << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

}  // namespace

double Tensor::element(std::size_t i) const {
  switch (dtype) {
    case DType::float32: return element_of<float>(bytes, i);
    case DType::float64: return element_of<double>(bytes, i);
    case DType::int64: return element_of<std::int64_t>(bytes, i);
    case DType::int32: return element_of<std::int32_t>(bytes, i);
    case DType::boolean: return element_of<std::uint8_t>(bytes, i);
    case DType::float16: return half_element(bytes, i, false);
    case DType::bfloat16: return half_element(bytes, i, true);
    case DType::int8: return element_of<std::int8_t>(bytes, i);
    case DType::uint8: return element_of<std::uint8_t>(bytes, i);
  }
  return 0.0;
}

Tensor Tensor::float32(std::string name, std::vector<std::int64_t> shape, std::span<const float> values) {
  Tensor t{std::move(name), DType::float32, std::move(shape), {}};
  t.bytes.resize(values.size_bytes());
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), values.size_bytes());
  return t;
}

std::span<const float> Tensor::float32_values() const {
  if (dtype != DType::float32) throw ConformanceError("tensor " + name + " is not float32");
  return {reinterpret_cast<const float*>(bytes.data()), bytes.size() / sizeof(float)};
}

std::uint16_t float16_bits(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
  const std::uint32_t magnitude = x & 0x7fffffff;
  if (magnitude > 0x7f800000) return sign | 0x7e00;       // NaN
  if (magnitude >= 0x477ff000) return sign | 0x7c00;      // at least 65520 (or infinite): rounds to infinity
  if (magnitude < 0x38800000) {                           // below 2^-14: a subnormal half, in steps of 2^-24
    return sign | static_cast<std::uint16_t>(std::nearbyint(std::fabs(value) * 16777216.0f));
  }
  const std::uint32_t rounded = magnitude + 0xfff + ((magnitude >> 13) & 1);  // to nearest, ties to even
  return sign | static_cast<std::uint16_t>((rounded - 0x38000000) >> 13);     // exponent bias 127 -> 15
}

std::uint16_t bfloat16_bits(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<std::uint16_t>((x >> 16) | 0x40);  // NaN stays NaN
  return static_cast<std::uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

}  // namespace nnx
