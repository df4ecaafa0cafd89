// An ONNX-file profile's exporter options, cases, settings and profile-file form (onnx_file_profile.h; §11).
#include "profile/onnx_file_profile.h"

#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "profile/profile_spelling.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace key = rf::profile_key;
namespace option = rf::exporter_key;
namespace settings_key = rf::settings_key;

}  // namespace

json onnx_file_exporter_options(const Profile& profile) {
  const OnnxFileSpec& file = *profile.onnx_file;
  json dynamic = json::object();
  for (const auto& input : profile.module->inputs) {
    for (std::size_t axis = 0; axis < input.shape.size(); ++axis) {
      if (!input.shape[axis].fixed) dynamic[input.shape[axis].symbol].push_back(json::array({input.name, axis}));
    }
  }
  return json{{option::kOptionExporter, profile.exporter},
              {option::kOptionOpsetVersion, profile.opset_version},
              {option::kOptionInputNames, file.graph_inputs},
              {option::kOptionOutputNames, file.graph_outputs},
              {option::kOptionDynamicDims, dynamic}};
}

std::vector<InputCase> onnx_file_input_cases(const Profile& profile) {
  std::vector<InputCase> cases;
  for (const auto& c : profile.onnx_file->cases) cases.push_back({c.name, {}, c.seed, c.expect, c});
  return cases;
}

json onnx_file_settings(const Profile& profile) {
  json cases = json::array();
  for (const auto& c : profile.onnx_file->cases) {
    json dims = json::object();
    for (const auto& [name, value] : c.dims) dims[name] = value;
    cases.push_back({{rf::case_key::kName, c.name}, {rf::module_case_key::kDims, dims}, {rf::kInputs, c.input_shapes}});
  }
  return json{{settings_key::kTolerances, {{rf::tolerance_key::kRtol, profile.rtol}, {rf::tolerance_key::kAtol, profile.atol}}},
              {settings_key::kInputCases, cases},
              {settings_key::kRuntime, json::array({profile.runtime, profile.provider})},
              {settings_key::kExporterOptions, onnx_file_exporter_options(profile)},
              {rf::kModel, profile.onnx_file->variant()},
              {settings_key::kArtifactDirectory, profile.name}};
}

json onnx_file_profile_json(const Profile& profile) {
  return json{{key::kName, profile.name},
              {rf::model_key::kOnnx, profile.onnx_file->onnx},
              {rf::model_key::kData, profile.onnx_file->data},
              {key::kOpsetVersion, profile.opset_version},
              {key::kRtol, profile.rtol},
              {key::kAtol, profile.atol},
              {key::kRuntime, profile.runtime},
              {key::kProvider, profile.provider}};
}

std::vector<std::string> onnx_file_profile_problems(const Profile& profile) {
  std::vector<std::string> out;
  if (profile.exporter != rf::kExporterImported) {
    out.push_back("exporter must be \"" + std::string(rf::kExporterImported) + "\" for a profile naming onnx, not \"" +
                  profile.exporter + "\"");
  }
  if (profile.opset_version != profile.onnx_file->opset) {
    out.push_back(std::string(key::kOpsetVersion) + " " + std::to_string(profile.opset_version) + " is not the file's opset " +
                  std::to_string(profile.onnx_file->opset) + " (leave it out: the file states it)");
  }
  if (profile.onnx_file->cases.empty()) out.push_back("data: no data set to compare with");
  return out;
}

bool is_onnx_file_profile_object(const json& value) { return value.is_object() && value.contains(rf::model_key::kOnnx); }

Profile onnx_file_profile_from_json(const json& value, std::vector<std::string>& problems) {
  Profile p;
  p.exporter = rf::kExporterImported;
  FieldReader r(value, "profile", problems);
  std::string onnx, data;
  std::optional<std::vector<std::string>> inputs;
  if (value.contains(key::kName)) r.string(key::kName, p.name); else problems.push_back("profile.name: missing");
  if (value.contains(key::kExporter)) r.string(key::kExporter, p.exporter);
  r.string(rf::model_key::kOnnx, onnx);
  if (value.contains(rf::model_key::kData)) r.string(rf::model_key::kData, data);
  else problems.push_back("profile.data: missing (a folder holding test_data_set_<N>/input_<j>.pb and output_<j>.pb)");
  if (value.contains(rf::kInputs)) {
    const json& given = value[rf::kInputs];
    inputs.emplace();
    r.allow_extra(rf::kInputs);
    for (const auto& item : given.is_array() ? given : json::array()) {
      if (item.is_string()) inputs->push_back(item.get<std::string>());
      else if (item.is_object() && item.contains(rf::input_key::kName) && item[rf::input_key::kName].is_string()) {
        inputs->push_back(item[rf::input_key::kName].get<std::string>());
      } else {
        problems.push_back("profile.inputs: each must be an input's name (or an object with a name), not " + item.dump());
      }
    }
    if (!given.is_array()) problems.push_back("profile.inputs: must be a list of the graph's input names");
  }
  if (value.contains(key::kRuntime)) r.string(key::kRuntime, p.runtime);
  if (value.contains(key::kProvider)) r.string(key::kProvider, p.provider);
  const bool opset_given = value.contains(key::kOpsetVersion) || value.contains(key::kOpset);
  read_opset_and_tolerances(value, r, p, problems);
  r.finish();
  if (!problems.empty()) return p;
  ModuleSpec signature;
  p.onnx_file = read_onnx_file_spec(onnx, data, inputs ? &*inputs : nullptr, signature, problems);
  p.module = std::move(signature);
  if (!opset_given) p.opset_version = p.onnx_file->opset;
  return p;
}

}  // namespace nnx
