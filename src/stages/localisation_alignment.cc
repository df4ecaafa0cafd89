// PyTorch's values aligned with the ONNX graph's (localisation_alignment.h).
#include "stages/localisation_alignment.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

namespace nnx::localisation {
namespace {

using nlohmann::json;

bool within_scope(const std::string& path, const std::string& scope) {
  return path == scope || (path.size() > scope.size() && path.compare(0, scope.size(), scope) == 0 &&
                           path[scope.size()] == '.');
}

// For each module path, the value its scope hands on: the last output, in graph order, of a node in the
// scope that is read by a node outside it or is a graph output.
std::unordered_map<std::string, std::pair<std::string, std::size_t>> scope_outputs(const GraphOutline& outline,
                                                                                 const ReferenceValues& torch) {
  std::vector<std::string> paths(outline.nodes.size());
  for (std::size_t i = 0; i < outline.nodes.size(); ++i) paths[i] = scope_path(outline.nodes[i].name);
  std::unordered_map<std::string, std::vector<std::size_t>> readers;
  for (std::size_t i = 0; i < outline.nodes.size(); ++i) {
    for (const auto& in : outline.nodes[i].inputs) readers[in].push_back(i);
  }
  const std::set<std::string> graph_outputs(outline.outputs.begin(), outline.outputs.end());
  std::unordered_map<std::string, std::pair<std::string, std::size_t>> found;
  for (const auto& value : torch.values) {
    for (std::size_t i = 0; i < outline.nodes.size(); ++i) {
      if (!within_scope(paths[i], value.name)) continue;
      for (const auto& out : outline.nodes[i].outputs) {
        bool leaves = graph_outputs.count(out) > 0;
        for (std::size_t r : readers[out]) leaves = leaves || !within_scope(paths[r], value.name);
        if (leaves) found[value.name] = {out, i};
      }
    }
  }
  return found;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Why a dynamo value has no ONNX value of its name: the node whose FX node read it (the exporter folded it
// into that node, and its optimiser says by which rules), else that the exporter left it out.
std::string why_no_value(const GraphOutline& outline, const std::string& name) {
  const std::string needle = "%" + name;
  for (const auto& node : outline.nodes) {
    const auto fx = node.metadata.find("pkg.torch.onnx.fx_node");
    if (fx == node.metadata.end()) continue;
    const std::string& text = fx->second;
    const std::size_t eq = text.find(" = ");  // the FX node's own name is before it, what it reads after
    for (std::size_t at = text.find(needle, eq); eq != std::string::npos && at != std::string::npos;
         at = text.find(needle, at + 1)) {
      const std::size_t end = at + needle.size();
      if (end < text.size() && is_name_char(text[end])) continue;
      const auto rules = node.metadata.find("pkg.onnxscript.rewriter.rule_name");
      return "no ONNX value of this name: folded into " + node.op_type + " node '" + node.name + "'" +
             (rules == node.metadata.end() ? std::string() : " by the exporter's optimiser (" + rules->second + ")");
    }
  }
  return "no ONNX value of this name, and no node reads it: the exporter dropped it (unused) or renamed it";
}

}  // namespace

std::string scope_path(const std::string& node_name) {
  if (node_name.empty() || node_name.front() != '/') return "";
  std::vector<std::string> parts;
  std::size_t start = 1;
  for (std::size_t slash = node_name.find('/', start); slash != std::string::npos;
       start = slash + 1, slash = node_name.find('/', start)) {
    parts.push_back(node_name.substr(start, slash - start));
  }
  std::string path;
  for (const auto& part : parts) {
    if (part.empty()) continue;
    if (!path.empty() && part.compare(0, path.size() + 1, path + ".") == 0) {
      path = part;
    } else {
      path = path.empty() ? part : path + "." + part;
    }
  }
  return path;
}

Alignment align(const GraphOutline& outline, const ReferenceValues& torch) {
  Alignment out;
  out.left_out = json::array();
  std::unordered_map<std::string, std::size_t> producer;
  for (std::size_t i = 0; i < outline.nodes.size(); ++i) {
    for (const auto& o : outline.nodes[i].outputs) {
      if (!o.empty()) producer.emplace(o, i);
    }
  }
  out.onnx_values = producer.size();
  const bool by_module = torch.granularity == "module";
  const auto scopes = by_module ? scope_outputs(outline, torch)
                                : std::unordered_map<std::string, std::pair<std::string, std::size_t>>{};
  std::set<std::string> taken;
  for (std::size_t t = 0; t < torch.values.size(); ++t) {
    const std::string& name = torch.values[t].name;
    std::optional<std::pair<std::string, std::size_t>> at;
    const auto k = torch.values[t].output_index;
    if (!by_module) {
      if (const auto p = producer.find(name); p != producer.end()) at = std::make_pair(name, p->second);
    } else if (!k) {
      if (const auto s = scopes.find(name); s != scopes.end()) at = s->second;
    }
    if (!at && k && *k < outline.outputs.size()) {  // a graph output: the exporter names it after the output
      if (const auto o = producer.find(outline.outputs[*k]); o != producer.end()) {
        at = std::make_pair(outline.outputs[*k], o->second);
      }
    }
    if (!at) {
      out.left_out.push_back({{"name", name},
                              {"why", by_module ? "no node in its scope: the exporter inlined or removed it"
                                                : why_no_value(outline, name)}});
      continue;
    }
    if (!taken.insert(at->first).second) {
      out.left_out.push_back({{"name", name}, {"why", "its ONNX value " + at->first + " is another PyTorch value's"}});
      continue;
    }
    out.aligned.push_back({t, at->first, at->second});
  }
  std::stable_sort(out.aligned.begin(), out.aligned.end(),
                   [](const AlignedValue& a, const AlignedValue& b) { return a.node < b.node; });
  out.onnx_without_counterpart = out.onnx_values - out.aligned.size();
  return out;
}

}  // namespace nnx::localisation
