// One tensor as a serialised onnx.TensorProto (ONNX's own onnx.proto; doc/architecture.md, "The layers"):
// the format of ONNX's test-data files `test_data_set_<k>/input_<j>.pb` (artifacts/layout.h) and of what
// `onnx.numpy_helper.from_array` writes. No protobuf type appears in this API.
//
// `encode_tensor_proto` writes name, dims, data_type and raw_data (the tensor's little-endian bytes), as
// from_array does; a tensor whose bytes do not match its dtype and shape, or a bool byte that is not 0 or 1,
// is refused (ConformanceError).
//
// `decode_tensor_proto` reads raw_data or the typed field other tools write for the dtype (float_data for
// float32, double_data for float64, int64_data for int64; int32_data for int32, bool, int8 and uint8, and for
// float16 and bfloat16 their 16-bit patterns, as onnx.proto says: each value range-checked for the narrower
// type, one out of range refused naming it). It throws
// ConformanceError, its message starting with `what`, for bytes that do not parse, a data_type the core
// does not support (named as onnx.proto names it), a negative dim, a size that overflows or exceeds
// `max_bytes` (checked before anything is allocated for the values), raw_data or a typed field whose
// length is not what the dims say, values in a field the data_type does not use, a bool that is not 0 or
// 1, segments, and external data (data_location EXTERNAL).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/tensor.h"

namespace nnx {

std::string encode_tensor_proto(const Tensor& tensor);

Tensor decode_tensor_proto(std::span<const std::byte> bytes, const std::string& what, std::uint64_t max_bytes);
// The same, letting `bytes` go once they are parsed: at most two copies of the values at a time, not three
// (a stored tensor read for parity, stages/stored_tensors.h).
Tensor decode_tensor_proto(std::vector<std::byte>&& bytes, const std::string& what, std::uint64_t max_bytes);

}  // namespace nnx
