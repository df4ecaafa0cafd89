// Reading an ONNX model file (a serialised onnx.ModelProto, ONNX's own onnx.proto compiled by protoc at build
// time; doc/architecture.md, "The layers"). The load stage uses it to learn which external-data locations a
// model references, spelled exactly as the model spells them (doc/record-format.md §4 load), before any
// session exists.
//
// `read_onnx_model` parses the bytes and walks every tensor the model holds, once (doc/external-data.md):
// initializers and sparse initializers (values and indices) of every graph, node attribute tensors and
// sparse tensors, subgraphs at any depth, model-local functions' nodes and attribute defaults. A tensor
// whose data is external must be one whose bytes ONNX Runtime is given from memory — a main-graph initializer
// or the `value` of a main-graph Constant — and must not use ONNX Runtime's memory-address tag as its location;
// any other is refused (ConformanceError naming the tensor, where it sits and the way out), since ONNX
// Runtime would read it from a path relative to its working directory. It returns the served tensors'
// locations and the graph's initializers in file order; a FLOAT initializer's values come from raw_data
// (little endian), float_data or its external file (`offset`, `length`), read through `external` (unless
// the caller asks for `FloatValues::sizes_only`). Bytes
// that do not parse as a model with a graph, or an initializer whose external file is absent, out of range
// or of the wrong size for its dims, throw ConformanceError naming the tensor and the problem. Nothing is
// allocated for values before their count is known to match the bytes that hold them.
//
// It also returns the graph's inputs (those that are not also initializers, as IR versions before 4 list
// them) and outputs in file order, each with its element type (a DType when base/tensor.h has one) and its
// shape, a dimension being a fixed size, a dim_param name or unknown; and what the file says of itself
// (`OnnxProducer`: ir_version, producer, domain, model_version and the opset of each domain it imports).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/tensor.h"

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

// One dimension of a value's shape (onnx.proto TensorShapeProto.Dimension): a fixed size (dim_value), a
// symbolic name (dim_param), or neither when the file leaves it unknown.
struct OnnxDimension {
  std::optional<std::int64_t> size;  // dim_value, as written
  std::optional<std::string> param;  // dim_param
  bool operator==(const OnnxDimension&) const = default;
};

// A graph input or output (onnx.proto ValueInfoProto) of tensor type.
struct OnnxValueInfo {
  std::string name;
  std::optional<DType> dtype;           // nullopt for an element type base/tensor.h does not support
  std::int32_t element_type = 0;        // TensorProto.DataType as written (0: not a tensor, or unset)
  std::vector<OnnxDimension> shape;     // empty for a scalar, and when the file gives no shape
  bool has_shape = false;               // whether the file gives a shape (a rank) at all
};

// What a model file says of itself (onnx.proto ModelProto's own fields), as written.
struct OnnxProducer {
  std::int64_t ir_version = 0;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  std::int64_t model_version = 0;
  std::map<std::string, std::int64_t> opsets;  // opset_import: domain ("" the default) -> version
};

struct OnnxModelFile {
  std::vector<std::string> external_locations;  // every (served) referenced location as written, sorted, unique
  std::vector<OnnxInitializer> initializers;     // graph.initializer, in file order
  std::vector<OnnxValueInfo> graph_inputs;       // graph.input less the initializers' names, in file order
  std::vector<OnnxValueInfo> graph_outputs;      // graph.output, in file order
  OnnxProducer producer;
};

// The bytes of the file an external-data location names (the location exactly as the model writes it),
// or nullopt when there is none. An error it throws instead passes through read_onnx_model unchanged.
using ExternalBytes = std::function<std::optional<std::span<const std::byte>>(const std::string& location)>;

// Whether a FLOAT initializer's `values` are filled (`decoded`) or left empty, its sizes checked all the same
// (`sizes_only`: a caller that needs only the locations and the graph's signature, e.g. the load stage of a
// module record, skips a copy of every weight).
enum class FloatValues { decoded, sizes_only };

OnnxModelFile read_onnx_model(std::span<const std::byte> model_bytes, const ExternalBytes& external,
                              FloatValues float_values = FloatValues::decoded);

}  // namespace nnx
