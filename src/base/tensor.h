// A named, typed tensor (doc/record-format.md §10, "Module records"): what flows through the stages for a
// module profile and what the runtime seam runs (runtime/runtime.h). Its bytes are the elements in
// row-major order, little-endian, exactly as ONNX's TensorProto `raw_data` holds them
// (onnx_file/tensor_proto.h) and as the worker protocol's tensor frames carry them (worker/tensor_frames.h,
// worker/tensor_wire.h: one wire for every kind and every dtype).
//
// `DType` names the element types a module's outputs and the float64 oracle may have (a module profile's
// inputs are float32, float64, int64 or int32: profile/module_spec.h); `dtype_name` spells them as profiles
// and records do ("float32", "float16", "int64", ...). float16 is IEEE binary16, bfloat16 the upper half of a
// float32 (doc/record-format.md §10); both widen to double exactly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nnx {

enum class DType { float32, float64, int64, int32, boolean, float16, bfloat16, int8, uint8 };

std::string_view dtype_name(DType dtype);  // "float32", "float64", "int64", "int32", "bool", "float16", ...
std::optional<DType> parse_dtype(std::string_view name);           // the inverse; nullopt for any other name
std::size_t dtype_size(DType dtype);                               // bytes per element
std::int32_t onnx_element_type(DType dtype);                       // TensorProto.DataType (FLOAT = 1, ...)
std::optional<DType> dtype_of_onnx_element_type(std::int32_t type);  // the inverse; nullopt for any other
// A float32 value's float16 (IEEE binary16) and bfloat16 bits, rounded to nearest, ties to even; beyond the
// range an infinity; NaN stays NaN. A drawn half-precision input is its float32 draw so rounded.
std::uint16_t float16_bits(float value);
std::uint16_t bfloat16_bits(float value);

struct Tensor {
  std::string name;
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> bytes;  // element_count() * dtype_size(dtype) bytes

  // The product of the shape (1 for a scalar, 0 when a size is 0 whatever the others); nullopt when a size
  // is negative or the product overflows.
  std::optional<std::int64_t> element_count() const;
  // Whether bytes.size() is what dtype and shape say.
  bool consistent() const;
  // The elements as double (every dtype widens exactly, int64 where double can hold it).
  std::vector<double> as_doubles() const;
  // One element so widened (i below element_count() of a consistent tensor): a pass over a large tensor that
  // makes no widened copy (stages/value_departure.h).
  double element(std::size_t i) const;
  // A float32 tensor over `values` (copied).
  static Tensor float32(std::string name, std::vector<std::int64_t> shape, std::span<const float> values);
  std::span<const float> float32_values() const;  // only for a float32 tensor (ConformanceError otherwise)
  // The same name, dtype, shape and bytes.
  bool operator==(const Tensor&) const = default;
};

}  // namespace nnx
