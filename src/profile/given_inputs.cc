// A module profile's given inputs read (given_inputs.h).
#include "profile/given_inputs.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "profile/data_set_folder.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;

std::string input_names(const ModuleSpec& spec) {
  std::vector<std::string> names;
  for (const auto& in : spec.inputs) names.push_back(in.name);
  return nlohmann::json(names).dump();
}

// The spec input `file` gives (by its TensorProto name); nullopt, with a problem, when it names none of them.
std::optional<std::size_t> bound_input(const ModuleSpec& spec, const std::string& where, const Tensor& t,
                                       const std::vector<bool>& taken, std::vector<std::string>& problems) {
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    if (spec.inputs[i].name != t.name) continue;
    if (!taken[i]) return i;
    problems.push_back(where + " gives input \"" + t.name + "\" a second time in its data set");
    return std::nullopt;
  }
  problems.push_back(where + (t.name.empty() ? std::string(" names no input") : " names \"" + t.name + "\", no input") +
                     " of the profile's " + input_names(spec) +
                     ": a given tensor is bound by its TensorProto name (numpy_helper.from_array(values, name=...))");
  return std::nullopt;
}

GivenDataSet read_data_set(const ModuleSpec& spec, std::uint64_t number, const fs::path& folder,
                           std::vector<std::string>& problems) {
  GivenDataSet set{number, {}, {}};
  const std::string name = folder.filename().string();
  if (const auto outputs = numbered_files(folder, "output"); !outputs.empty()) {
    problems.push_back("profile.data: " + outputs.front().string() + ": data sets checked against a module give inputs "
                       "only (the reference is PyTorch's, computed on them): remove the output_<j>.pb files (an ONNX "
                       "file's data sets are compared with their outputs when `module` is left out)");
  }
  const auto files = numbered_files(folder, "input");
  if (files.empty()) problems.push_back("profile.data: " + folder.string() + " holds no input_0.pb");
  std::vector<bool> taken(spec.inputs.size(), false);
  std::map<std::string, std::int64_t> dims;
  for (std::size_t j = 0; j < files.size(); ++j) {
    const std::string where = "profile.data: " + files[j].string();
    const Tensor t = read_data_set_tensor(files[j], ErrorKind::usage);
    const auto input = bound_input(spec, where, t, taken, problems);
    if (!input) continue;
    taken[*input] = true;
    GivenInput given{*input, files[j].string(), name + "/" + files[j].filename().string(), t.dtype, t.shape};
    bind_data_set_tensor(spec.inputs[*input], t.dtype, t.shape, where, &spec.dims, dims, problems);
    set.inputs.push_back(std::move(given));
  }
  for (const auto& [dim, values] : spec.dims) {
    const auto it = dims.find(dim);
    set.dims.emplace_back(dim, it != dims.end() ? it->second : values.front());
  }
  for (const auto& bound : dims) {  // a dim the profile left out: the data sets give its values
    const auto named = [&](const auto& d) { return d.first == bound.first; };
    if (std::none_of(spec.dims.begin(), spec.dims.end(), named)) set.dims.push_back(bound);
  }
  return set;
}

// The symbolic dims the inputs use that `dims` leaves out, in the order the inputs use them.
std::vector<std::string> dims_left_out(const ModuleSpec& spec) {
  std::vector<std::string> out;
  for (const std::string& symbol : spec.symbols()) {
    const auto named = [&](const auto& d) { return d.first == symbol; };
    if (std::none_of(spec.dims.begin(), spec.dims.end(), named)) out.push_back(symbol);
  }
  return out;
}

// Each dim `dims` leaves out takes the sizes the data sets give it, in the order they give them (every data set
// must: a problem names the first that does not); the data sets' dims are then in the spec's order.
void take_dims_from_data_sets(ModuleSpec& spec, std::vector<std::string>& problems) {
  for (const std::string& dim : dims_left_out(spec)) {
    std::vector<std::int64_t> sizes;
    for (const GivenDataSet& set : spec.given) {
      const auto it = std::find_if(set.dims.begin(), set.dims.end(), [&](const auto& d) { return d.first == dim; });
      if (it == set.dims.end()) {
        problems.push_back("profile.data: test_data_set_" + std::to_string(set.number) + " gives no input that sets dim " +
                           dim + ": give its sizes in dims, or in that data set every input that uses it");
        break;
      }
      if (std::find(sizes.begin(), sizes.end(), it->second) == sizes.end()) sizes.push_back(it->second);
    }
    spec.dims.emplace_back(dim, std::move(sizes));
    spec.data_dims.push_back(dim);
  }
  for (GivenDataSet& set : spec.given) {
    std::vector<std::pair<std::string, std::int64_t>> ordered;
    for (const auto& spec_dim : spec.dims) {
      const auto named = [&](const auto& d) { return d.first == spec_dim.first; };
      const auto it = std::find_if(set.dims.begin(), set.dims.end(), named);
      if (it != set.dims.end()) ordered.push_back(*it);
    }
    set.dims = std::move(ordered);
  }
}

}  // namespace

void read_given_inputs(const std::string& data, ModuleSpec& spec, std::vector<std::string>& problems) {
  spec.data = data;
  const std::size_t before = problems.size();
  try {
    if (!fs::is_directory(data)) {
      problems.push_back("profile.data: " + data + " is not a folder (name one holding test_data_set_<N>/input_<j>.pb)");
      return;
    }
    const auto folders = data_set_folders(data);
    if (folders.empty()) problems.push_back("profile.data: " + data + " holds no test_data_set_<N> folder");
    if (folders.size() > module_limits::kMaxCases) {
      problems.push_back("profile.data: " + std::to_string(folders.size()) + " data sets, more than " +
                         std::to_string(module_limits::kMaxCases));
      return;
    }
    for (const auto& [number, folder] : folders) spec.given.push_back(read_data_set(spec, number, folder, problems));
    if (problems.size() == before) take_dims_from_data_sets(spec, problems);
  } catch (const Error& e) {
    problems.push_back(std::string("profile.data: ") + e.what());
  } catch (const fs::filesystem_error& e) {
    problems.push_back(std::string("profile.data: ") + e.what());
  }
  if (problems.size() != before) {
    spec.given.clear();
    for (const std::string& dim : spec.data_dims) {
      spec.dims.erase(std::find_if(spec.dims.begin(), spec.dims.end(), [&](const auto& d) { return d.first == dim; }));
    }
    spec.data_dims.clear();
  }
}

}  // namespace nnx
