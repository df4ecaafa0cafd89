// One onnx.TensorProto as an OnnxInitializer (internal to src/onnx_file/; the public contract is
// onnx_model_file.h). The element count is the product of the dims, each non-negative, refused when it
// overflows; the bytes that hold the values (raw_data, or the `offset`/`length` slice of the external file)
// must be exactly that count times the element size before anything is allocated for them. FLOAT values
// are decoded from little-endian bytes or taken from float_data. Any problem: ConformanceError naming the
// tensor. The keys of an external reference are ONNX's (onnx.proto, TensorProto.external_data).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <onnx.pb.h>

#include "onnx_file/onnx_model_file.h"

namespace nnx {

// Throws ConformanceError "<what>: <problem>", the form of every refusal of a tensor here (`what` names it).
[[noreturn]] void refuse_tensor(const std::string& what, const std::string& problem);

// An external reference's keys: `location` exactly as written, `offset` (default 0), `length` (default: to
// the end of the file). ConformanceError for a missing location, a key given twice or a malformed number.
struct ExternalReference {
  std::string location;
  std::uint64_t offset = 0;
  std::optional<std::uint64_t> length;
};
ExternalReference external_reference(const onnx::TensorProto& tensor, const std::string& what);

// Whether the tensor's data is in an external file (data_location EXTERNAL).
bool is_external(const onnx::TensorProto& tensor);

// `float_values`: whether a FLOAT tensor's values are decoded into `values` (its sizes are checked either way).
OnnxInitializer read_initializer(const onnx::TensorProto& tensor, const ExternalBytes& external, bool float_values);

}  // namespace nnx
