// Sizes a graph holds as constants where a shape is computed (frozen_sizes.h).
#include "onnx_file/frozen_sizes.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <unordered_map>

#include <onnx.pb.h>

#include "base/error.h"

namespace nnx {
namespace {

using Values = std::vector<std::int64_t>;

// `count` little-endian signed integers of `Width` bytes from raw_data, else the typed field's values.
template <std::size_t Width, class Field>
std::optional<Values> integers_of(const onnx::TensorProto& t, std::size_t count, const Field& typed) {
  if (!t.has_raw_data()) return Values(typed.begin(), typed.end());
  if (t.raw_data().size() != count * Width) return std::nullopt;
  Values out;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t bits = 0;
    for (std::size_t b = Width; b-- > 0;) bits = (bits << 8) | static_cast<unsigned char>(t.raw_data()[i * Width + b]);
    const std::uint64_t sign = std::uint64_t{1} << (Width * 8 - 1);
    out.push_back(Width == 8 ? static_cast<std::int64_t>(bits)
                             : static_cast<std::int64_t>(bits ^ sign) - static_cast<std::int64_t>(sign));
  }
  return out;
}

// A small integer tensor's values (int64 or int32, raw_data little endian or the typed field), else nullopt.
std::optional<Values> small_integers(const onnx::TensorProto& t) {
  std::size_t count = 1;
  for (auto d : t.dims()) {
    if (d < 0 || static_cast<std::size_t>(d) > kShapeConstantMax) return std::nullopt;
    count *= static_cast<std::size_t>(d);
  }
  if (count > kShapeConstantMax || t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  std::optional<Values> out;
  if (t.data_type() == onnx::TensorProto::INT64) out = integers_of<8>(t, count, t.int64_data());
  if (t.data_type() == onnx::TensorProto::INT32) out = integers_of<4>(t, count, t.int32_data());
  return out && out->size() == count ? out : std::nullopt;
}

// The operands of each operator that are a shape. Not a Slice's bounds: they are indices, equal to a small
// export size by chance too often (dynamo's GRU slices its gate blocks at 2).
std::vector<int> shape_operands(const std::string& op_type) {
  if (op_type == "Reshape" || op_type == "Expand" || op_type == "Tile") return {1};
  if (op_type == "ConstantOfShape") return {0};
  return {};
}

bool folds_through(const std::string& op_type) {
  return op_type == "Concat" || op_type == "Unsqueeze" || op_type == "Squeeze" || op_type == "Cast";
}

struct GraphIndex {
  std::unordered_map<std::string, Values> constants;              // value name -> its small integer values
  std::unordered_map<std::string, const onnx::NodeProto*> producer;  // value name -> the node writing it
};

GraphIndex index_graph(const onnx::GraphProto& graph) {
  GraphIndex index;
  for (const auto& t : graph.initializer()) {
    if (auto values = small_integers(t)) index.constants[t.name()] = std::move(*values);
  }
  for (const auto& node : graph.node()) {
    for (const auto& out : node.output()) index.producer[out] = &node;
    if (node.op_type() != "Constant" || node.output_size() != 1) continue;
    for (const auto& a : node.attribute()) {
      if (a.name() != "value" || !a.has_t()) continue;
      if (auto values = small_integers(a.t())) index.constants[node.output(0)] = std::move(*values);
    }
  }
  return index;
}

// Every constant value reaching `name` through Concat/Unsqueeze/Squeeze/Cast (their data operands).
void constants_reaching(const GraphIndex& index, const std::string& name, int depth, Values& found) {
  if (const auto c = index.constants.find(name); c != index.constants.end()) {
    found.insert(found.end(), c->second.begin(), c->second.end());
    return;
  }
  const auto p = index.producer.find(name);
  if (depth >= kFoldDepth || p == index.producer.end() || !folds_through(p->second->op_type())) return;
  const onnx::NodeProto& node = *p->second;
  const int operands = node.op_type() == "Concat" ? node.input_size() : std::min(node.input_size(), 1);
  for (int i = 0; i < operands; ++i) constants_reaching(index, node.input(i), depth + 1, found);
}

}  // namespace

std::map<std::int64_t, FrozenSize> find_frozen_sizes(std::span<const std::byte> model_bytes,
                                                     const std::vector<std::int64_t>& sizes) {
  onnx::ModelProto model;
  if (model_bytes.size() > static_cast<std::size_t>(INT_MAX) ||
      !model.ParseFromArray(model_bytes.data(), static_cast<int>(model_bytes.size()))) {
    throw ConformanceError("the model file does not parse as an ONNX model");
  }
  const GraphIndex index = index_graph(model.graph());
  std::map<std::int64_t, FrozenSize> frozen;
  for (const auto& node : model.graph().node()) {
    for (int operand : shape_operands(node.op_type())) {
      if (operand >= node.input_size()) continue;
      Values found;
      constants_reaching(index, node.input(operand), 0, found);
      for (std::int64_t size : sizes) {
        if (size < 2 || frozen.count(size) || std::find(found.begin(), found.end(), size) == found.end()) continue;
        frozen.emplace(size, FrozenSize{node.name(), node.op_type()});
      }
    }
  }
  return frozen;
}

}  // namespace nnx
