#include "onnx_file/onnx_model_file.h"

#include <climits>
#include <set>

#include <onnx.pb.h>

#include "base/error.h"
#include "onnx_file/onnx_tensor.h"

namespace nnx {
namespace {

// Every external-data location of the tensors a graph holds, at any depth (the collector of the walk).
class LocationWalk {
 public:
  void tensor(const onnx::TensorProto& t) {
    if (!is_external(t)) return;
    for (const auto& entry : t.external_data()) {
      if (entry.key() == "location") found_.insert(entry.value());
    }
  }
  void sparse(const onnx::SparseTensorProto& s) {
    if (s.has_values()) tensor(s.values());
    if (s.has_indices()) tensor(s.indices());
  }
  void attribute(const onnx::AttributeProto& a) {
    if (a.has_t()) tensor(a.t());
    for (const auto& t : a.tensors()) tensor(t);
    if (a.has_sparse_tensor()) sparse(a.sparse_tensor());
    for (const auto& s : a.sparse_tensors()) sparse(s);
    if (a.has_g()) graph(a.g());
    for (const auto& g : a.graphs()) graph(g);
  }
  void node(const onnx::NodeProto& n) {
    for (const auto& a : n.attribute()) attribute(a);
  }
  void graph(const onnx::GraphProto& g) {
    for (const auto& t : g.initializer()) tensor(t);
    for (const auto& s : g.sparse_initializer()) sparse(s);
    for (const auto& n : g.node()) node(n);
  }
  void function(const onnx::FunctionProto& f) {
    for (const auto& a : f.attribute_proto()) attribute(a);  // default attribute values
    for (const auto& n : f.node()) node(n);
  }
  std::vector<std::string> sorted() const { return {found_.begin(), found_.end()}; }

 private:
  std::set<std::string> found_;
};

onnx::ModelProto parse_model(std::span<const std::byte> bytes) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    throw ConformanceError("the model is not an ONNX model: " + std::to_string(bytes.size()) +
                           " bytes, more than protobuf's 2 GiB limit");
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw ConformanceError("the model is not an ONNX model: its bytes do not parse as onnx.ModelProto");
  }
  if (!model.has_graph()) throw ConformanceError("the model is not an ONNX model: it holds no graph");
  return model;
}

OnnxValueInfo value_info(const onnx::ValueInfoProto& value) {
  OnnxValueInfo info{value.name(), std::nullopt, 0, {}, false};
  if (!value.has_type() || !value.type().has_tensor_type()) return info;  // a sequence, map, optional...
  const onnx::TypeProto::Tensor& tensor = value.type().tensor_type();
  info.element_type = tensor.elem_type();
  info.dtype = dtype_of_onnx_element_type(info.element_type);
  info.has_shape = tensor.has_shape();
  for (const auto& dim : tensor.shape().dim()) {
    OnnxDimension d;
    if (dim.has_dim_value()) d.size = dim.dim_value();
    if (dim.has_dim_param()) d.param = dim.dim_param();
    info.shape.push_back(std::move(d));
  }
  return info;
}

// graph.input less the names of initializers (IR versions before 4 list every initializer as an input).
std::vector<OnnxValueInfo> graph_inputs(const onnx::GraphProto& graph) {
  std::set<std::string> initialized;
  for (const auto& t : graph.initializer()) initialized.insert(t.name());
  std::vector<OnnxValueInfo> inputs;
  for (const auto& value : graph.input()) {
    if (!initialized.count(value.name())) inputs.push_back(value_info(value));
  }
  return inputs;
}

}  // namespace

OnnxModelFile read_onnx_model(std::span<const std::byte> model_bytes, const ExternalBytes& external) {
  const onnx::ModelProto model = parse_model(model_bytes);
  LocationWalk walk;
  walk.graph(model.graph());
  for (const auto& f : model.functions()) walk.function(f);
  OnnxModelFile file;
  file.external_locations = walk.sorted();
  file.initializers.reserve(static_cast<std::size_t>(model.graph().initializer_size()));
  for (const auto& t : model.graph().initializer()) file.initializers.push_back(read_initializer(t, external));
  file.graph_inputs = graph_inputs(model.graph());
  for (const auto& value : model.graph().output()) file.graph_outputs.push_back(value_info(value));
  return file;
}

}  // namespace nnx
