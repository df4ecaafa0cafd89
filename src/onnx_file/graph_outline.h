// A model's graph as localisation reads and cuts it (stages/localisation.h; doc/localisation.md): its nodes in
// the file's order (ONNX requires it topological), each with its inputs, outputs and the metadata an exporter
// wrote on it (the dynamo exporter's `pkg.torch.onnx.*` keys: the FX node, the module scopes, the source
// line), and two ways to derive a model from the bytes without reading any external data:
//
// - `model_with_outputs`: the same model, its graph outputs followed by the named values (each once; a name
//   already an output is not added again), so that a session returns them too. Their types are left to the
//   runtime's inference, as Polygraphy's marked outputs are.
// - `sub_model`: only the given nodes (in the file's order), their graph inputs the values they read that none
//   of them writes and no initializer holds, typed as given; the initializers they read copied (one stored as
//   external data is refused: the cut would name a file it does not hold); its outputs the given values. The opset imports, IR
//   version and local functions are the model's own. It is what a repro holds (doc/localisation.md, "The repro").
//
// Bytes that do not parse, a node index out of range or a value nothing writes: ConformanceError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/tensor.h"

namespace nnx {

struct GraphNode {
  std::string name;      // as the file writes it ("" when unnamed)
  std::string op_type;
  std::string domain;    // "" for ONNX's own operators
  std::vector<std::string> inputs;   // "" for an omitted optional input
  std::vector<std::string> outputs;
  std::map<std::string, std::string> metadata;  // metadata_props
};

struct GraphOutline {
  std::vector<GraphNode> nodes;          // the file's order
  std::vector<std::string> inputs;       // graph inputs no initializer holds, in order
  std::vector<std::string> initializers;
  std::vector<std::string> outputs;
};

GraphOutline read_graph_outline(std::span<const std::byte> model_bytes);

std::string model_with_outputs(std::span<const std::byte> model_bytes, const std::vector<std::string>& values);

// A value's element type and shape, for a sub-model's declared inputs and outputs.
struct ValueType {
  std::string name;
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
};

std::string sub_model(std::span<const std::byte> model_bytes, const std::vector<std::size_t>& nodes,
                      const std::vector<ValueType>& inputs, const std::vector<ValueType>& outputs);

}  // namespace nnx
