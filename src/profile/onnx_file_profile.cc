// An ONNX-file profile's exporter options, cases, settings and profile-file form (onnx_file_profile.h; §11).
#include "profile/onnx_file_profile.h"

#include <algorithm>

#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "profile/given_inputs.h"
#include "profile/module_factory.h"
#include "profile/module_spec.h"
#include "profile/profile_module.h"
#include "profile/profile_spelling.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace key = rf::profile_key;

}  // namespace

json onnx_file_exporter_options(const Profile& profile) {
  return module_exporter_options(profile);  // the graph's signature is the profile's module spec
}

std::vector<InputCase> onnx_file_input_cases(const Profile& profile) {
  std::vector<InputCase> cases;
  for (const auto& c : profile.onnx_file_spec()->cases) cases.push_back({c.name, c.seed, c.expect, c});
  return cases;
}

json onnx_file_settings(const Profile& profile) {
  json settings = module_settings(profile);  // its cases are Profile::input_cases(): the data sets, or drawn
  settings[rf::kModel] = profile.onnx_file_spec()->variant();
  return settings;
}

json onnx_file_profile_json(const Profile& profile) {
  const OnnxFileSpec& file = *profile.onnx_file_spec();
  json out{{key::kName, profile.name}, {rf::model_key::kOnnx, file.onnx}};
  if (!file.data.empty()) out[rf::model_key::kData] = file.data;
  if (!file.factory.empty()) {
    out[rf::kModule] = file.factory;
    out[rf::model_key::kBind] = file.variant()[rf::model_key::kBind];
    out[rf::kDims] = profile.module_spec()->to_json()[rf::kDims];
  }
  out.update(json{
              {key::kOpsetVersion, profile.opset_version},
              {key::kRtol, profile.rtol},
              {key::kAtol, profile.atol},
              {key::kRuntime, profile.runtime},
              {key::kProvider, profile.provider}});
  return out;
}

std::vector<std::string> onnx_file_profile_problems(const Profile& profile) {
  std::vector<std::string> out;
  if (profile.exporter != rf::kExporterImported) {
    out.push_back("exporter must be \"" + std::string(rf::kExporterImported) + "\" for a profile naming onnx, not \"" +
                  profile.exporter + "\"");
  }
  if (profile.opset_version != profile.onnx_file_spec()->opset) {
    out.push_back(std::string(key::kOpsetVersion) + " " + std::to_string(profile.opset_version) + " is not the file's opset " +
                  std::to_string(profile.onnx_file_spec()->opset) + " (leave it out: the file states it)");
  }
  if (profile.onnx_file_spec()->cases.empty()) out.push_back("data: no data set to compare with");
  return out;
}


namespace {

// `inputs`: the graph's input names, each a string or an object {name, range} (a drawn integer input's range).
std::vector<std::string> read_input_names(const json& given, std::vector<std::pair<std::string, json>>& ranges,
                                          std::vector<std::string>& problems) {
  std::vector<std::string> names;
  for (const auto& item : given.is_array() ? given : json::array()) {
    if (item.is_string()) {
      names.push_back(item.get<std::string>());
    } else if (item.is_object() && item.contains(rf::input_key::kName) && item[rf::input_key::kName].is_string()) {
      names.push_back(item[rf::input_key::kName].get<std::string>());
      if (item.contains(rf::input_key::kRange)) ranges.emplace_back(names.back(), item[rf::input_key::kRange]);
    } else {
      problems.push_back("profile.inputs: each must be an input's name (or an object with a name), not " + item.dump());
    }
  }
  if (!given.is_array()) problems.push_back("profile.inputs: must be a list of the graph's input names");
  return names;
}

// A file checked against its factory: the profile's dims and ranges on the graph's signature, bind checked,
// the data sets' given inputs read when `data` is named too (given_inputs.h: bound by graph input name), and the
// module rule's cases drawn (module_spec.h).
void draw_against_factory(const json& value, const std::vector<std::pair<std::string, json>>& ranges, Profile& p,
                          std::vector<std::string>& problems) {
  OnnxFileSpec& file = *p.onnx_file_spec();
  ModuleSpec& spec = *p.module_spec();
  spec.factory = file.factory;
  if (const auto dims = value.find(rf::kDims); dims != value.end()) read_dims(*dims, spec, problems);
  for (const auto& [name, range] : ranges) {
    for (auto& input : spec.inputs) {
      if (input.name == name && range.is_array() && range.size() == 2 && range[0].is_number_integer() && range[1].is_number_integer()) {
        input.range = std::make_pair(range[0].get<std::int64_t>(), range[1].get<std::int64_t>());
      } else if (input.name == name) {
        problems.push_back("profile.inputs: the range of " + name + " must be [low, high) integers");
      }
    }
  }
  for (const auto& [graph, parameter] : file.bind) {
    if (std::find(file.graph_inputs.begin(), file.graph_inputs.end(), graph) == file.graph_inputs.end()) {
      problems.push_back("profile.bind: " + graph + " is not one of the graph's inputs");
    }
  }
  for (const auto& parameter : file.parameters()) {
    if (!is_identifier(parameter)) {
      problems.push_back("profile.bind: the graph input named " + parameter + " is not a Python parameter name: bind it " +
                         "to the forward's parameter, e.g. {\"" + parameter + "\": \"x\"}");
    }
  }
  for (auto& problem : spec.problems(!file.data.empty())) problems.push_back(std::move(problem));
  if (problems.empty() && !file.data.empty()) read_given_inputs(file.data, spec, problems);
  if (problems.empty()) {
    for (auto& problem : spec.problems()) problems.push_back(std::move(problem));  // a dim or range the data left open
  }
  if (problems.empty()) file.cases = spec.cases();
}

}  // namespace

Profile onnx_file_profile_from_json(const json& value, std::vector<std::string>& problems) {
  Profile p;
  p.parts = OnnxFileParts{};
  p.exporter = rf::kExporterImported;
  FieldReader r(value, "profile", problems);
  std::string onnx, data, factory;
  std::optional<std::vector<std::string>> inputs;
  std::vector<std::pair<std::string, json>> ranges;
  std::vector<std::pair<std::string, std::string>> bind;
  if (value.contains(key::kName)) r.string(key::kName, p.name); else problems.push_back("profile.name: missing");
  if (value.contains(key::kExporter)) r.string(key::kExporter, p.exporter);
  r.string(rf::model_key::kOnnx, onnx);
  if (value.contains(rf::model_key::kData)) r.string(rf::model_key::kData, data);
  if (value.contains(rf::kModule)) r.string(rf::kModule, factory);
  if (data.empty() && factory.empty()) {
    problems.push_back("profile.data: missing: name a folder holding test_data_set_<N>/input_<j>.pb and output_<j>.pb, "
                       "or the module factory the file is checked against (or both: the data sets then give inputs)");
  }
  if (const json* given = value.contains(rf::model_key::kBind) ? r.object(rf::model_key::kBind) : nullptr) {
    for (const auto& [graph, parameter] : given->items()) {
      if (parameter.is_string()) bind.emplace_back(graph, parameter.get<std::string>());
      else problems.push_back("profile.bind." + graph + ": must be the forward parameter's name");
    }
  }
  if (value.contains(rf::kInputs)) {
    r.allow_extra(rf::kInputs);
    inputs = read_input_names(value[rf::kInputs], ranges, problems);
  }
  if (value.contains(rf::kDims)) r.allow_extra(rf::kDims);
  if (value.contains(key::kRuntime)) r.string(key::kRuntime, p.runtime);
  if (value.contains(key::kProvider)) r.string(key::kProvider, p.provider);
  const bool opset_given = value.contains(key::kOpsetVersion) || value.contains(key::kOpset);
  read_opset_and_tolerances(value, r, p, problems);
  r.finish();
  if (!problems.empty()) return p;
  OnnxFileParts& parts = std::get<OnnxFileParts>(p.parts);
  // Against a factory, data sets give inputs (given_inputs.h, read by draw_against_factory), not the reference.
  parts.file = read_onnx_file_spec(onnx, factory.empty() ? data : "", inputs ? &*inputs : nullptr, parts.signature,
                                   problems);
  parts.file.data = data;
  parts.file.factory = factory;
  parts.file.bind = std::move(bind);
  if (!opset_given) p.opset_version = parts.file.opset;
  if (problems.empty() && !factory.empty()) draw_against_factory(value, ranges, p, problems);
  return p;
}

}  // namespace nnx
