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
  return set;
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
  } catch (const Error& e) {
    problems.push_back(std::string("profile.data: ") + e.what());
  } catch (const fs::filesystem_error& e) {
    problems.push_back(std::string("profile.data: ") + e.what());
  }
  if (problems.size() != before) spec.given.clear();
}

}  // namespace nnx
