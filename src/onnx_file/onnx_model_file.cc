#include "onnx_file/onnx_model_file.h"

#include <climits>
#include <set>

#include <onnx.pb.h>

#include "base/error.h"
#include "onnx_file/onnx_tensor.h"

namespace nnx {
namespace {

// ONNX Runtime's tag for a location whose `offset` is an address in its own memory (tensorprotoutils.h).
constexpr const char* kOrtMemoryAddressTag = "*/_ORT_MEM_ADDR_/*";

// A node as a message names it: its name (or its index when it has none) and its operator.
std::string node_name(const onnx::NodeProto& n, int index) {
  const std::string named = n.name().empty() ? "#" + std::to_string(index) : "\"" + n.name() + "\"";
  return "node " + named + " (" + (n.domain().empty() ? "" : n.domain() + ".") + n.op_type() + ")";
}

bool is_onnx_constant(const onnx::NodeProto& n) {
  return n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx");
}

// The one walk over every tensor a model holds (doc/external-data.md): the main graph's initializers and
// sparse initializers, every node attribute's tensors, sparse tensors and graphs (subgraphs at any depth),
// and every model-local function's nodes and attribute defaults. Each tensor with external data is either
// served from the verified bytes (a main-graph initializer, or the `value` of a main-graph Constant, which
// ONNX Runtime turns into one) and its location collected, or refused naming it and where it sits.
class ExternalDataWalk {
 public:
  void model(const onnx::ModelProto& m) {
    graph(m.graph(), "the main graph", true);
    for (const auto& f : m.functions()) {
      const std::string in = "function \"" + f.name() + "\" (domain \"" + f.domain() + "\")";
      for (const auto& a : f.attribute_proto()) attribute(a, "default of attribute \"" + a.name() + "\" of " + in);
      nodes(f.node(), in, false);
    }
  }
  std::vector<std::string> sorted() const { return {found_.begin(), found_.end()}; }

 private:
  void graph(const onnx::GraphProto& g, const std::string& in, bool main) {
    for (const auto& t : g.initializer()) tensor(t, "initializer \"" + t.name() + "\" of " + in, main);
    for (const auto& s : g.sparse_initializer()) {
      sparse(s, "sparse initializer \"" + s.values().name() + "\" of " + in);
    }
    nodes(g.node(), in, main);
  }
  void nodes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& list, const std::string& in, bool main) {
    for (int i = 0; i < list.size(); ++i) {
      const onnx::NodeProto& n = list[i];
      for (const auto& a : n.attribute()) {
        const std::string of = "attribute \"" + a.name() + "\" of " + node_name(n, i) + " in " + in;
        const bool served = main && is_onnx_constant(n) && a.name() == "value";  // becomes an initializer
        attribute(a, of, served);
      }
    }
  }
  void attribute(const onnx::AttributeProto& a, const std::string& of, bool served = false) {
    if (a.has_t()) tensor(a.t(), "the tensor of " + of, served);
    for (const auto& t : a.tensors()) tensor(t, "a tensor of " + of, false);
    if (a.has_sparse_tensor()) sparse(a.sparse_tensor(), "the sparse tensor of " + of);
    for (const auto& s : a.sparse_tensors()) sparse(s, "a sparse tensor of " + of);
    if (a.has_g()) graph(a.g(), "subgraph \"" + a.g().name() + "\" (" + of + ")", false);
    for (const auto& g : a.graphs()) graph(g, "subgraph \"" + g.name() + "\" (" + of + ")", false);
  }
  void sparse(const onnx::SparseTensorProto& s, const std::string& what) {
    if (s.has_values()) tensor(s.values(), "the values of " + what, false);
    if (s.has_indices()) tensor(s.indices(), "the indices of " + what, false);
  }
  void tensor(const onnx::TensorProto& t, const std::string& what, bool served) {
    if (!is_external(t)) return;
    const std::string named = "tensor \"" + t.name() + "\" (" + what + ")";
    const ExternalReference ref = external_reference(t, named);
    if (ref.location == kOrtMemoryAddressTag) {
      throw ConformanceError(named + " gives its external data location as \"" + ref.location +
                             "\", ONNX Runtime's tag for an address in its own memory: re-save the model with the "
                             "data inline or in a file beside model.onnx");
    }
    if (!served) {
      throw ConformanceError(named + " keeps its data in the external file \"" + ref.location +
                             "\", which ONNX Runtime would open relative to its working directory instead of "
                             "taking it from the verified artifacts (only main-graph initializers and main-graph "
                             "Constants are served from them): re-save the model with the data inline or as a "
                             "main-graph initializer");
    }
    found_.insert(ref.location);
  }

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

OnnxModelFile read_onnx_model(std::span<const std::byte> model_bytes, const ExternalBytes& external,
                              FloatValues float_values) {
  const onnx::ModelProto model = parse_model(model_bytes);
  ExternalDataWalk walk;
  walk.model(model);
  OnnxModelFile file;
  file.external_locations = walk.sorted();
  file.initializers.reserve(static_cast<std::size_t>(model.graph().initializer_size()));
  for (const auto& t : model.graph().initializer()) file.initializers.push_back(read_initializer(t, external, float_values == FloatValues::decoded));
  file.graph_inputs = graph_inputs(model.graph());
  for (const auto& value : model.graph().output()) file.graph_outputs.push_back(value_info(value));
  file.producer = {model.ir_version(), model.producer_name(), model.producer_version(), model.domain(),
                   model.model_version(), {}};
  for (const auto& opset : model.opset_import()) file.producer.opsets[opset.domain()] = opset.version();
  return file;
}

}  // namespace nnx
