// Reading an ONNX model file (a serialised onnx.ModelProto, ONNX's own onnx.proto compiled by protoc at build
// time; doc/architecture.md, "The layers"). The load stage uses it to learn which external-data locations a
// model references, spelled exactly as the model spells them (doc/record-format.md §4 load).
//
// `read_onnx_model` parses the bytes and returns every external-data `location` the model references
// (initializers, sparse initializers, node attribute tensors at any subgraph depth, model-local functions)
// and the graph's initializers in file order; a FLOAT initializer's values come from raw_data (little
// endian), float_data or its external file (`offset`, `length`), read through `external`. Bytes that do not
// parse as a model with a graph, or an initializer whose external file is absent, out of range or of the
// wrong size for its dims, throw ConformanceError naming the tensor and the problem. Nothing is allocated
// for values before their count is known to match the bytes that hold them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace nnx {

// onnx.TensorProto.DataType's FLOAT.
inline constexpr std::int32_t kOnnxFloat = 1;

struct OnnxInitializer {
  std::string name;
  std::vector<std::int64_t> dims;
  std::int32_t data_type = 0;                    // onnx.TensorProto.DataType
  std::vector<float> values;                     // filled when data_type is kOnnxFloat
  std::optional<std::string> external_location;  // as written, when the data is external
};

struct OnnxModelFile {
  std::vector<std::string> external_locations;  // every referenced location as written, sorted, unique
  std::vector<OnnxInitializer> initializers;     // graph.initializer, in file order
};

// The bytes of the file an external-data location names (the location exactly as the model writes it),
// or nullopt when there is none. An error it throws instead passes through read_onnx_model unchanged.
using ExternalBytes = std::function<std::optional<std::span<const std::byte>>(const std::string& location)>;

OnnxModelFile read_onnx_model(std::span<const std::byte> model_bytes, const ExternalBytes& external);

}  // namespace nnx
