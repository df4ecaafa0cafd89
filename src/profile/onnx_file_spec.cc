// Reading an ONNX-file profile's model and data sets (onnx_file_spec.h; doc/record-format.md §11).
#include "profile/onnx_file_spec.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <iterator>
#include <map>
#include <sys/stat.h>

#include "artifacts/artifact_path.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/model_record_vocabulary.h"
#include "onnx_file/onnx_model_file.h"
#include "onnx_file/tensor_proto.h"
#include "profile/data_set_folder.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;

std::string list_text(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return "[" + out + "]";
}

// A dim's name as a module spec may hold it ([A-Za-z0-9._-]): other characters become '_'.
std::string dim_name(std::string name) {
  for (char& c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  }
  return name.empty() ? "dim" : name;
}

// The graph's inputs as a ModuleSpec's (no factory): each dimension fixed, named, or `<input>.<axis>`.
void signature_of(const OnnxModelFile& model, ModuleSpec& spec, std::vector<std::string>& problems) {
  for (const auto& in : model.graph_inputs) {
    InputSpec input;
    input.name = in.name;
    if (!in.dtype) {
      problems.push_back("onnx: graph input " + in.name + " has element type " + std::to_string(in.element_type) +
                         ", which the tool does not carry");
      continue;
    }
    input.dtype = *in.dtype;
    for (std::size_t axis = 0; axis < in.shape.size(); ++axis) {
      const OnnxDimension& d = in.shape[axis];
      if (d.size && *d.size > 0) input.shape.push_back({*d.size, ""});
      else input.shape.push_back({std::nullopt, dim_name(d.param ? *d.param : in.name + "." + std::to_string(axis))});
    }
    spec.inputs.push_back(std::move(input));
  }
  std::vector<std::string> outputs;
  for (const auto& out : model.graph_outputs) outputs.push_back(out.name);
  spec.outputs = outputs;
}


// The tensors of `files`, bound to `graph` names: by each file's own name when every file names one, else
// by position. Appends problems.
std::vector<DataSetTensor> bound(const std::vector<fs::path>& files, const std::vector<std::string>& graph,
                                 const std::string& what, std::uint64_t& total, std::vector<std::string>& problems) {
  std::vector<Tensor> tensors;
  tensors.reserve(files.size());
  std::vector<std::string> names;
  for (const auto& file : files) {
    tensors.push_back(read_data_set_tensor(file, ErrorKind::usage));
    total += tensors.back().bytes.size();
    names.push_back(tensors.back().name);
  }
  if (files.size() != graph.size()) {
    problems.push_back("data: " + std::to_string(files.size()) + " " + what + " file(s) in a data set, but the graph has " +
                       std::to_string(graph.size()) + " " + what + "s " + list_text(graph));
    return {};
  }
  const bool by_name = std::none_of(names.begin(), names.end(), [](const auto& n) { return n.empty(); });
  std::vector<DataSetTensor> out(graph.size());
  for (std::size_t j = 0; j < files.size(); ++j) {
    std::size_t at = j;
    if (by_name) {
      at = static_cast<std::size_t>(std::find(graph.begin(), graph.end(), names[j]) - graph.begin());
      if (at == graph.size() || !out[at].name.empty()) {
        problems.push_back("data: " + files[j].string() + " names " + what + " \"" + names[j] +
                           "\", not one of the graph's " + what + "s " + list_text(graph) + " (or twice)");
        continue;
      }
    }
    out[at] = {files[j].string(), graph[at], tensors[j].dtype, tensors[j].shape};
  }
  return out;
}

}  // namespace

namespace {

// The case of data set `set` against the signature: each input's dtype, rank and fixed sizes, and the dims'
// values (each dim one value within a case). Appends problems; dims' values are collected into `values`.
ModuleCase case_of(const OnnxDataSet& set, const ModuleSpec& spec, std::map<std::string, std::vector<std::int64_t>>& values,
                   std::vector<std::string>& order, std::vector<std::string>& problems) {
  ModuleCase c{"data-set-" + set.folder.substr(set.folder.rfind('_') + 1), {}, {}, 0, rf::kExpectMatch, std::nullopt};
  std::map<std::string, std::int64_t> dims;
  for (std::size_t j = 0; j < spec.inputs.size() && j < set.inputs.size(); ++j) {
    const InputSpec& in = spec.inputs[j];
    const DataSetTensor& t = set.inputs[j];
    // the graph's input: its dims take whatever values the data sets give (no `allowed` list)
    bind_data_set_tensor(in, t.dtype, t.shape, "data: " + t.source, nullptr, dims, problems);
    if (t.shape.size() != in.shape.size()) continue;  // named above
    c.input_shapes.push_back(t.shape);
  }
  for (const auto& [name, value] : dims) {
    auto& seen = values[name];
    if (seen.empty()) order.push_back(name);
    if (std::find(seen.begin(), seen.end(), value) == seen.end()) seen.push_back(value);
  }
  for (const auto& name : order) {
    if (const auto it = dims.find(name); it != dims.end()) c.dims.emplace_back(name, it->second);
  }
  return c;
}

void check_spec_inputs(const std::vector<std::string>& spec, const std::vector<std::string>& graph,
                       std::vector<std::string>& problems) {
  std::vector<std::string> a = spec, b = graph;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a == b) return;
  std::vector<std::string> graph_lacks, spec_lacks;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(graph_lacks));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(spec_lacks));
  problems.push_back("inputs: the profile's inputs " + list_text(spec) + " are not the graph's inputs " +
                     list_text(graph) + " (the graph lacks " + list_text(graph_lacks) + ", the profile leaves out " +
                     list_text(spec_lacks) + "); name exactly the graph's inputs, or leave `inputs` out");
}

void read_data_sets(const fs::path& data, OnnxFileSpec& out, ModuleSpec& spec, std::vector<std::string>& problems) {
  const auto folders = data_set_folders(data);
  if (folders.empty()) problems.push_back("data: " + data.string() + " holds no test_data_set_<N> folder");
  if (folders.size() > module_limits::kMaxCases) {
    problems.push_back("data: " + std::to_string(folders.size()) + " data sets, more than " +
                       std::to_string(module_limits::kMaxCases));
    return;
  }
  std::uint64_t total = 0;
  std::map<std::string, std::vector<std::int64_t>> values;
  std::vector<std::string> order;
  for (const auto& [n, folder] : folders) {
    OnnxDataSet set{folder.filename().string(), {}, {}};
    set.inputs = bound(numbered_files(folder, "input"), out.graph_inputs, "input", total, problems);
    std::uint64_t output_bytes = 0;
    set.outputs = bound(numbered_files(folder, "output"), out.graph_outputs, "output", output_bytes, problems);
    if (!problems.empty()) return;
    out.cases.push_back(case_of(set, spec, values, order, problems));
    out.data_sets.push_back(std::move(set));
  }
  if (total > module_limits::kMaxStoredBytes) {
    problems.push_back("data: the data sets' inputs hold " + std::to_string(total) + " bytes, more than " +
                       std::to_string(module_limits::kMaxStoredBytes));
  }
  for (const auto& name : order) spec.dims.emplace_back(name, values[name]);
}

}  // namespace

fs::path imported_external_file(const fs::path& model, const std::string& location) {
  std::string why;
  const auto path = normalize_artifact_path(location, &why);
  if (!path) {
    throw ConformanceError("the external data location \"" + location + "\" of " + model.string() +
                           " escapes the model's folder or is not a plain relative path (" + why +
                           "): keep external data in files beside the model, named relative to it");
  }
  fs::path at = model.parent_path();
  for (const auto& part : fs::path(*path)) {
    at /= part;
    struct stat st {};
    if (::lstat(at.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      throw ConformanceError("the external data location \"" + location + "\" of " + model.string() + " passes through " +
                             "the symlink " + at.string() + ": copy the file beside the model instead of linking it");
    }
  }
  return at;
}

std::vector<std::string> OnnxFileSpec::parameters() const {
  std::vector<std::string> out;
  for (const auto& input : graph_inputs) {
    std::string parameter = input;
    for (const auto& [graph, bound] : bind) {
      if (graph == input) parameter = bound;
    }
    out.push_back(parameter);
  }
  return out;
}

OnnxModelFile read_imported_model(const fs::path& model, std::span<const std::byte> bytes, ErrorKind kind) {
  std::deque<std::string> held;  // the external files' bytes, alive (and in place) while the model is read
  const ExternalBytes external = [&](const std::string& location) -> std::optional<std::span<const std::byte>> {
    held.push_back(read_file_bytes(imported_external_file(model, location), kMaxImportedFileBytes,
                                   "the imported file limit", kind));
    return std::as_bytes(std::span(held.back().data(), held.back().size()));
  };
  OnnxModelFile file = read_onnx_model(bytes, external, FloatValues::sizes_only);
  for (const auto& location : file.external_locations) imported_external_file(model, location);
  return file;
}

OnnxModelFile read_imported_model_file(const fs::path& model, ErrorKind kind) {
  const std::string bytes = read_file_bytes(model, kMaxImportedFileBytes, "the imported file limit", kind);
  return read_imported_model(model, std::as_bytes(std::span(bytes.data(), bytes.size())), kind);
}

nlohmann::json OnnxFileSpec::variant() const {
  namespace key = rf::model_key;
  nlohmann::json bound = nlohmann::json::object();
  for (const auto& [graph, parameter] : bind) bound[graph] = parameter;
  return nlohmann::json{{key::kKind, rf::kKindOnnxFile}, {key::kOnnx, onnx},
                        {key::kData, data.empty() ? nlohmann::json() : nlohmann::json(data)},
                        {key::kFactory, factory.empty() ? nlohmann::json() : nlohmann::json(factory)},
                        {key::kBind, bound},
                        {rf::module_key::kClass, nullptr}, {rf::module_key::kSourceSha256, nullptr},
                        {rf::module_key::kStateSha256, nullptr}};
}

OnnxFileSpec read_onnx_file_spec(const std::string& onnx, const std::string& data,
                                 const std::vector<std::string>* spec_inputs, ModuleSpec& signature,
                                 std::vector<std::string>& problems) {
  OnnxFileSpec out;
  out.onnx = onnx;
  out.data = data;
  std::size_t before = problems.size();
  try {
    const OnnxModelFile model = read_imported_model_file(onnx, ErrorKind::usage);
    const auto opset = model.producer.opsets.find("");
    out.opset = opset != model.producer.opsets.end() ? opset->second : 0;
    for (const auto& in : model.graph_inputs) out.graph_inputs.push_back(in.name);
    for (const auto& o : model.graph_outputs) out.graph_outputs.push_back(o.name);
    signature_of(model, signature, problems);
  } catch (const Error& e) {
    problems.push_back(std::string("onnx: ") + e.what());
    return out;
  }
  if (spec_inputs) check_spec_inputs(*spec_inputs, out.graph_inputs, problems);
  if (problems.size() != before || data.empty()) return out;
  try {
    read_data_sets(data, out, signature, problems);
  } catch (const Error& e) {
    problems.push_back(std::string("data: ") + e.what());
  } catch (const fs::filesystem_error& e) {
    problems.push_back(std::string("data: ") + e.what());
  }
  return out;
}

}  // namespace nnx
