// A model's graph outlined, marked and cut (graph_outline.h).
#include "onnx_file/graph_outline.h"

#include <climits>
#include <set>

#include <onnx.pb.h>

#include "base/error.h"

namespace nnx {
namespace {

onnx::ModelProto parse(std::span<const std::byte> bytes) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<std::size_t>(INT_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw ConformanceError("the model file does not parse as an ONNX model");
  }
  return model;
}

std::string serialise(const onnx::ModelProto& model) {
  std::string out;
  if (!model.SerializeToString(&out)) throw ConformanceError("the derived model does not serialise (over 2 GiB?)");
  return out;
}

void declare(onnx::ValueInfoProto& value, const ValueType& type) {
  value.set_name(type.name);
  auto* tensor = value.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx_element_type(type.dtype));
  auto* shape = tensor->mutable_shape();
  for (std::int64_t d : type.shape) shape->add_dim()->set_dim_value(d);
}

}  // namespace

GraphOutline read_graph_outline(std::span<const std::byte> model_bytes) {
  const onnx::ModelProto model = parse(model_bytes);
  const onnx::GraphProto& graph = model.graph();
  GraphOutline outline;
  std::set<std::string> held;
  for (const auto& t : graph.initializer()) {
    outline.initializers.push_back(t.name());
    held.insert(t.name());
  }
  for (const auto& in : graph.input()) {
    if (!held.count(in.name())) outline.inputs.push_back(in.name());
  }
  for (const auto& out : graph.output()) outline.outputs.push_back(out.name());
  outline.nodes.reserve(static_cast<std::size_t>(graph.node_size()));
  for (const auto& n : graph.node()) {
    GraphNode node{n.name(), n.op_type(), n.domain(), {n.input().begin(), n.input().end()},
                   {n.output().begin(), n.output().end()}, {}};
    for (const auto& p : n.metadata_props()) node.metadata[p.key()] = p.value();
    outline.nodes.push_back(std::move(node));
  }
  return outline;
}

std::string model_with_outputs(std::span<const std::byte> model_bytes, const std::vector<std::string>& values) {
  onnx::ModelProto model = parse(model_bytes);
  auto* graph = model.mutable_graph();
  std::set<std::string> present;
  for (const auto& out : graph->output()) present.insert(out.name());
  for (const auto& name : values) {
    if (present.insert(name).second) graph->add_output()->set_name(name);
  }
  return serialise(model);
}

std::string sub_model(std::span<const std::byte> model_bytes, const std::vector<std::size_t>& nodes,
                      const std::vector<ValueType>& inputs, const std::vector<ValueType>& outputs) {
  const onnx::ModelProto model = parse(model_bytes);
  const onnx::GraphProto& graph = model.graph();
  onnx::ModelProto cut;
  cut.set_ir_version(model.ir_version());
  *cut.mutable_opset_import() = model.opset_import();
  *cut.mutable_functions() = model.functions();
  cut.set_producer_name("nnx-conformance localisation");
  onnx::GraphProto* sub = cut.mutable_graph();
  sub->set_name("repro");
  std::set<std::string> read;
  for (std::size_t i : nodes) {
    if (i >= static_cast<std::size_t>(graph.node_size())) throw ConformanceError("node index out of range");
    *sub->add_node() = graph.node(static_cast<int>(i));
    for (const auto& in : graph.node(static_cast<int>(i)).input()) read.insert(in);
  }
  std::set<std::string> fed;
  for (const auto& type : inputs) {
    declare(*sub->add_input(), type);
    fed.insert(type.name);
  }
  for (const auto& t : graph.initializer()) {
    if (!read.count(t.name()) || fed.count(t.name())) continue;
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      throw ConformanceError("the initializer " + t.name() + " the cut reads is stored as external data");
    }
    *sub->add_initializer() = t;
  }
  for (const auto& type : outputs) declare(*sub->add_output(), type);
  return serialise(cut);
}

}  // namespace nnx
