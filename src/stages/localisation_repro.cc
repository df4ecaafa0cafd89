// A departing value's node re-run on PyTorch's inputs, and its repro (localisation_repro.h).
#include "stages/localisation_repro.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

#include "base/error.h"
#include "base/atomic_file.h"
#include "onnx_file/tensor_proto.h"

namespace nnx::localisation {
namespace {

using nlohmann::json;

struct Feeds {
  std::unordered_map<std::string, std::size_t> producer;  // value -> node
  std::unordered_map<std::string, std::size_t> torch;     // ONNX value -> ReferenceValues index
  std::set<std::string> initializers;
};

Feeds feeds_of(const Subject& subject, const Alignment& alignment) {
  Feeds f;
  for (std::size_t i = 0; i < subject.outline.nodes.size(); ++i) {
    for (const auto& o : subject.outline.nodes[i].outputs) f.producer.emplace(o, i);
  }
  for (const auto& a : alignment.aligned) f.torch.emplace(a.value, a.torch);
  f.initializers.insert(subject.outline.initializers.begin(), subject.outline.initializers.end());
  return f;
}

const Tensor* case_input(const Subject& subject, const std::string& name) {
  for (const Tensor& t : subject.inputs) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// The cut's nodes and the values it is fed (graph inputs and PyTorch values), grown from `start`.
std::pair<std::vector<std::size_t>, std::vector<std::string>> grow_cut(const Subject& subject, const Feeds& f,
                                                                       std::size_t start) {
  std::set<std::size_t> nodes{start};
  std::vector<std::string> fed;
  std::deque<std::size_t> todo{start};
  while (!todo.empty()) {
    const std::size_t n = todo.front();
    todo.pop_front();
    for (const auto& in : subject.outline.nodes[n].inputs) {
      if (in.empty() || f.initializers.count(in) || std::find(fed.begin(), fed.end(), in) != fed.end()) continue;
      if (case_input(subject, in) || f.torch.count(in)) {
        fed.push_back(in);
        continue;
      }
      const auto p = f.producer.find(in);
      if (p == f.producer.end()) throw ConformanceError("the value " + in + " has neither a writer nor a tensor");
      if (nodes.insert(p->second).second) {
        if (nodes.size() > kMaxCutNodes) {
          throw ConformanceError("no cut of at most " + std::to_string(kMaxCutNodes) +
                                 " nodes is fed by the reference's values alone");
        }
        todo.push_back(p->second);
      }
    }
  }
  return {{nodes.begin(), nodes.end()}, fed};
}

}  // namespace

json Rerun::to_json(const GraphOutline& outline) const {
  json names = json::array();
  json ops = json::array();
  for (std::size_t n : nodes) {
    names.push_back(outline.nodes[n].name);
    ops.push_back(outline.nodes[n].op_type);
  }
  json fed = json::array();
  for (const Tensor& t : inputs) fed.push_back(t.name);
  if (!failure.empty()) return json{{"verdict", nullptr}, {"why", failure}, {"nodes", names}, {"op_types", ops}};
  return json{{"verdict", introduces() ? "introduces" : "carries"},
              {"nodes", names},
              {"op_types", ops},
              {"inputs", fed},
              {"errors", departure.to_json()}};
}

Rerun rerun_on_torch_inputs(const Subject& subject, const Alignment& alignment, const ReferenceValues& torch,
                            const AlignedValue& value, const std::string& level) {
  Rerun out;
  try {
    const Feeds f = feeds_of(subject, alignment);
    auto [nodes, fed] = grow_cut(subject, f, value.node);
    out.nodes = nodes;
    std::vector<ValueType> types;
    for (const auto& name : fed) {
      if (const Tensor* t = case_input(subject, name)) {
        out.inputs.push_back(*t);
      } else {
        out.inputs.push_back(torch.read(torch.values[f.torch.at(name)]));
        out.inputs.back().name = name;
      }
      types.push_back({name, out.inputs.back().dtype, out.inputs.back().shape});
    }
    const ReferenceValue& wanted = torch.values[value.torch];
    out.expected = torch.read(wanted);
    out.expected.name = value.value;
    out.model = sub_model(subject.model, nodes, types, {{value.value, out.expected.dtype, out.expected.shape}});
    SessionSettings settings = subject.settings;
    settings.graph_optimization_level = level;
    auto session = subject.runtime->create_session(
        {reinterpret_cast<const std::byte*>(out.model.data()), out.model.size()}, *subject.external, settings);
    std::vector<Tensor> got = session->run(out.inputs);
    if (got.empty()) throw ConformanceError("the cut returned no output");
    out.actual = std::move(got.front());
    out.departure = value_departure(out.actual, out.expected, torch.read_oracle(wanted), subject.scale);
  } catch (const std::exception& e) {
    out.failure = e.what();
  }
  return out;
}

std::vector<std::string> write_repro(const std::filesystem::path& folder, const Rerun& rerun) {
  std::vector<std::string> files;
  const auto put = [&](const std::string& relative, const std::string& bytes) {
    std::filesystem::create_directories((folder / relative).parent_path());
    write_file_atomically(folder / relative, bytes);
    files.push_back(relative);
  };
  put("model.onnx", rerun.model);
  for (std::size_t j = 0; j < rerun.inputs.size(); ++j) {
    put("test_data_set_0/input_" + std::to_string(j) + ".pb", encode_tensor_proto(rerun.inputs[j]));
  }
  put("test_data_set_0/output_0.pb", encode_tensor_proto(rerun.expected));
  Tensor actual = rerun.actual;
  actual.name = rerun.expected.name;
  put("runtime_data_set_0/output_0.pb", encode_tensor_proto(actual));
  return files;
}

}  // namespace nnx::localisation
