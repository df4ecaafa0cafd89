// A module profile's exporter options, cases, settings and profile-file form (profile_module.h; §10).
#include "profile/profile_module.h"

#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "base/module_record_vocabulary.h"
#include "base/nearest_name.h"
#include "base/record_vocabulary.h"
#include "profile/given_inputs.h"
#include "profile/profile_spelling.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace key = rf::profile_key;
namespace option = rf::exporter_key;
namespace case_key = rf::case_key;
namespace settings_key = rf::settings_key;

json dims_of(const std::vector<std::pair<std::string, std::int64_t>>& dims) {
  json out = json::object();
  for (const auto& [name, value] : dims) out[name] = value;
  return out;
}

}  // namespace

json module_exporter_options(const Profile& profile) {
  const ModuleSpec& spec = *profile.module_spec();
  json input_names = json::array();
  json dynamic = json::object();
  for (const auto& input : spec.inputs) {
    input_names.push_back(input.name);
    for (std::size_t axis = 0; axis < input.shape.size(); ++axis) {
      if (input.shape[axis].fixed) continue;
      dynamic[input.shape[axis].symbol].push_back(json::array({input.name, axis}));
    }
  }
  return json{{option::kOptionExporter, profile.exporter},
              {option::kOptionOpsetVersion, profile.opset_version},
              {option::kOptionInputNames, input_names},
              {option::kOptionOutputNames, spec.outputs ? json(*spec.outputs) : json()},
              {option::kOptionDynamicDims, dynamic}};
}

std::vector<InputCase> module_input_cases(const Profile& profile) {
  std::vector<InputCase> cases;
  for (auto& c : profile.module_spec()->cases()) {
    cases.push_back(InputCase{c.name, c.seed, c.expect, std::move(c)});  // its fields read before the move
  }
  return cases;
}

json module_settings(const Profile& profile) {
  json cases = json::array();
  for (const auto& c : profile.input_cases()) {  // a module's, or an ONNX file's (its data sets, or drawn)
    cases.push_back({{case_key::kName, c.name}, {rf::module_case_key::kDims, dims_of(c.module()->dims)},
                     {rf::kInputs, c.module()->input_shapes}, {case_key::kSeed, c.seed}, {case_key::kExpect, c.expect}});
  }
  const json tolerances{{rf::tolerance_key::kRtol, profile.rtol}, {rf::tolerance_key::kAtol, profile.atol}};
  return json{{settings_key::kTolerances, tolerances},
              {settings_key::kInputCases, cases},
              {settings_key::kRuntime, json::array({profile.runtime, profile.provider})},
              {settings_key::kExporterOptions, module_exporter_options(profile)},
              {settings_key::kModule, profile.module_spec()->to_json()},
              {settings_key::kArtifactDirectory, profile.name}};
}

json module_profile_json(const Profile& profile) {
  json out{{key::kName, profile.name}, {key::kExporter, profile.exporter}};
  out.update(profile.module_spec()->to_json());
  out[key::kOpsetVersion] = profile.opset_version;  // the one spelling (profile_spelling.h)
  out[key::kRtol] = profile.rtol;
  out[key::kAtol] = profile.atol;
  out[key::kRuntime] = profile.runtime;
  out[key::kProvider] = profile.provider;
  return out;
}

std::vector<std::string> module_profile_problems(const Profile& profile) {
  std::vector<std::string> out;
  if (profile.opset_version < 7 || profile.opset_version > 30) {
    out.push_back(std::string(key::kOpsetVersion) + " must be an integer in 7..30, not " +
                  std::to_string(profile.opset_version));
  }
  for (auto& problem : profile.module_spec()->problems()) out.push_back(std::move(problem));
  return out;
}


namespace {

// `precision` (base/precision.h): one of its names, else the problem names them all.
void read_precision(const json& value, FieldReader& r, ModuleSpec& spec, std::vector<std::string>& problems) {
  namespace pk = rf::precision_key;
  std::string name;
  if (!value.contains(pk::kPrecision) || !r.string(pk::kPrecision, name)) {
    r.allow_extra(pk::kPrecision);
    return;
  }
  if (const auto parsed = parse_precision(name)) {
    spec.precision = *parsed;
    return;
  }
  std::string listed;
  for (const auto& known : precision_names()) listed += (listed.empty() ? "" : ", ") + known;
  problems.push_back("profile.precision: unknown precision \"" + name + "\" (" + listed + ")" +
                     did_you_mean(name, precision_names()));
}

}  // namespace

Profile module_profile_from_json(const json& value, std::vector<std::string>& problems) {
  Profile p;
  p.opset_version = kModuleDefaultOpset;
  p.parts = ModuleParts{module_spec_from_json(value, problems)};
  FieldReader r(value, "profile", problems);
  for (const char* k : {rf::kModule, rf::kInputs, rf::kDims, rf::kOutputs}) r.allow_extra(k);
  std::string data;  // given inputs (given_inputs.h), read once the spec itself is sound
  if (value.contains(rf::model_key::kData) && r.string(rf::model_key::kData, data) && problems.empty() &&
      p.module_spec()->problems(true).empty()) {
    read_given_inputs(data, *p.module_spec(), problems);
  }
  read_precision(value, r, *p.module_spec(), problems);
  r.may_hold({key::kName, key::kExporter, key::kRuntime, key::kProvider});
  if (value.contains(key::kName)) r.string(key::kName, p.name); else problems.push_back("profile.name: missing");
  if (value.contains(key::kExporter)) r.string(key::kExporter, p.exporter);
  else problems.push_back("profile.exporter: missing (torchscript or dynamo)");
  read_opset_and_tolerances(value, r, p, problems);
  if (value.contains(key::kRuntime)) r.string(key::kRuntime, p.runtime);
  if (value.contains(key::kProvider)) r.string(key::kProvider, p.provider);
  r.finish();
  return p;
}

}  // namespace nnx
