#include "profile/profile.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/error.h"
#include "base/failure.h"
#include "base/json_fields.h"
#include "base/json_python.h"
#include "base/limits.h"
#include "base/nearest_name.h"
#include "base/overloaded.h"
#include "base/record_vocabulary.h"
#include "base/tolerance_compare.h"
#include "profile/onnx_file_profile.h"
#include "profile/profile_module.h"
#include "profile/profile_spelling.h"

namespace nnx {
namespace {

namespace key = rf::profile_key;          // a profile object's own keys
namespace option = rf::exporter_key;      // the record's exporter options
namespace case_key = rf::case_key;        // an input case
namespace settings_key = rf::settings_key;  // the canonical settings object

// The tolerances' and the runtime's problems, which a feed-forward and a module profile share.
void tolerance_and_runtime_problems(const Profile& profile, std::vector<std::string>& p) {
  for (const auto& [name, value] : {std::pair{"rtol", profile.rtol}, std::pair{"atol", profile.atol}}) {
    if (auto problem = tolerance_problem(value, display_json(json(value))); !problem.empty()) {
      p.push_back(std::string(name) + " " + problem);
    }
  }
  if (profile.runtime != "onnxruntime") p.push_back("runtime must be \"onnxruntime\", not \"" + profile.runtime + "\"");
  if (profile.provider.empty()) p.push_back("provider must be a non-empty string");
}

}  // namespace

ModelKind Profile::kind() const {
  return std::visit(Overloaded{[](const FeedForwardParts&) { return ModelKind::feed_forward; },
                               [](const ModuleParts&) { return ModelKind::module; },
                               [](const OnnxFileParts&) { return ModelKind::onnx_file; }},
                    parts);
}

const ModuleSpec* Profile::module_spec() const {
  return std::visit(Overloaded{[](const FeedForwardParts&) -> const ModuleSpec* { return nullptr; },
                               [](const ModuleParts& m) -> const ModuleSpec* { return &m.spec; },
                               [](const OnnxFileParts& f) -> const ModuleSpec* { return &f.signature; }},
                    parts);
}

const OnnxFileSpec* Profile::onnx_file_spec() const {
  const auto* file = std::get_if<OnnxFileParts>(&parts);  // one alternative holds it
  return file != nullptr ? &file->file : nullptr;
}

json Profile::exporter_options() const {
  switch (kind()) {
    case ModelKind::module: return module_exporter_options(*this);
    case ModelKind::onnx_file: return onnx_file_exporter_options(*this);
    case ModelKind::feed_forward: break;
  }
  const FeedForwardParts& ff = feed_forward();
  return json{{option::kOptionExporter, exporter},
              {option::kOptionDynamo, dynamo()},
              {option::kOptionOpsetVersion, opset_version},
              {option::kOptionDynamicBatch, ff.dynamic_batch},
              {option::kOptionExportBatch, ff.export_batch},
              {option::kOptionInputNames, json::array({"features"})},
              {option::kOptionOutputNames, json::array({"logits"})}};
}

std::vector<std::string> Profile::requirements() const {
  switch (kind()) {
    case ModelKind::onnx_file:  // no worker for data sets alone: the file is imported, not exported
      if (onnx_file_spec()->factory.empty()) return {"onnxruntime"};
      return {"torch", "onnx", "onnxruntime"};  // its factory's reference, and its weights read from the file
    case ModelKind::module:
    case ModelKind::feed_forward: break;
  }
  std::vector<std::string> r = {"torch", "onnx", "onnxruntime"};
  if (dynamo()) r.push_back("onnxscript");
  return r;
}

std::vector<InputCase> Profile::input_cases() const {
  switch (kind()) {
    case ModelKind::module: return module_input_cases(*this);
    case ModelKind::onnx_file: return onnx_file_input_cases(*this);
    case ModelKind::feed_forward: break;
  }
  const FeedForwardParts& ff = feed_forward();
  std::vector<InputCase> cases;
  for (std::int64_t b : ff.batches) {
    cases.push_back({"batch-" + std::to_string(b), static_cast<std::uint64_t>(1000 + b), rf::kExpectMatch,
                     CaseShape{b, ff.model.input_dim}});
  }
  const std::int64_t wrong = ff.model.input_dim + 1;
  cases.push_back({"width-" + std::to_string(wrong), 2000, rf::kExpectRejected, CaseShape{3, wrong}});
  return cases;
}

json Profile::model_variant() const {
  switch (kind()) {
    case ModelKind::onnx_file: return onnx_file_spec()->variant();
    case ModelKind::module:
    case ModelKind::feed_forward: break;
  }
  return nullptr;
}

json Profile::settings() const {
  switch (kind()) {
    case ModelKind::module: return module_settings(*this);
    case ModelKind::onnx_file: return onnx_file_settings(*this);
    case ModelKind::feed_forward: break;
  }
  json cases = json::array();
  for (const auto& c : input_cases()) {
    cases.push_back({{case_key::kName, c.name}, {case_key::kShape, c.shape()}, {case_key::kSeed, c.seed},
                     {case_key::kExpect, c.expect}});
  }
  return json{{settings_key::kTolerances, {{rf::tolerance_key::kRtol, rtol}, {rf::tolerance_key::kAtol, atol}}},
              {settings_key::kInputCases, cases},
              {settings_key::kDtype, feed_forward().dtype},
              {settings_key::kRuntime, json::array({runtime, provider})},
              {settings_key::kExporterOptions, exporter_options()},
              {settings_key::kModelConfig, feed_forward().model.to_json()},
              {settings_key::kArtifactDirectory, name}};
}

std::string Profile::canonical_settings_text() const { return dumps_canonical(settings()); }

std::vector<std::string> Profile::problems() const {
  std::vector<std::string> p;
  if (auto problem = profile_name_problem(name)) p.push_back(std::move(*problem));
  const ModelKind model_kind = kind();
  if (model_kind_facts(model_kind).exported && exporter != rf::kExporterTorchscript && exporter != rf::kExporterDynamo) {
    p.push_back("exporter must be \"torchscript\" or \"dynamo\", not \"" + exporter + "\"");
  }
  switch (model_kind) {
    case ModelKind::module:
      tolerance_and_runtime_problems(*this, p);
      for (auto& problem : module_profile_problems(*this)) p.push_back(std::move(problem));
      if (p.empty() && is_tested_name(name)) p.push_back("profile \"" + name + "\" reuses a tested profile's name");
      return p;
    case ModelKind::onnx_file:
      tolerance_and_runtime_problems(*this, p);
      for (auto& problem : onnx_file_profile_problems(*this)) p.push_back(std::move(problem));
      if (p.empty() && is_tested_name(name)) p.push_back("profile \"" + name + "\" reuses a tested profile's name");
      return p;
    case ModelKind::feed_forward: break;
  }
  auto bounded = [&](const std::string& what, std::int64_t v) {
    if (v < 1 || v > limits::kMaxUnits) {
      p.push_back(what + " must be an integer in 1.." + std::to_string(limits::kMaxUnits) + ", not " +
                  std::to_string(v));
    }
  };
  bounded(key::kOpsetVersion, opset_version);
  const FeedForwardParts& ff = feed_forward();
  const std::vector<std::int64_t>& batches = ff.batches;
  const ModelConfig& model = ff.model;
  bounded(key::kExportBatch, ff.export_batch);
  if (batches.empty()) p.push_back("batches must hold at least one batch size");
  if (static_cast<std::int64_t>(batches.size()) > limits::kMaxBatches) {
    p.push_back("batches holds " + std::to_string(batches.size()) + " sizes; at most " +
                std::to_string(limits::kMaxBatches) + " are allowed");
  }
  for (std::size_t i = 0; i < batches.size(); ++i) bounded("batches[" + std::to_string(i) + "]", batches[i]);
  tolerance_and_runtime_problems(*this, p);
  if (ff.dtype != "float32") {
    p.push_back("dtype must be \"float32\", not \"" + ff.dtype + "\"" + did_you_mean(ff.dtype, {"float32"}));
  }
  const auto model_problems = model.problems();
  p.insert(p.end(), model_problems.begin(), model_problems.end());
  if (model_problems.empty() && !batches.empty()) {
    const std::int64_t max_batch = *std::max_element(batches.begin(), batches.end());
    if (max_batch >= 1 && max_batch <= limits::kMaxUnits &&
        max_batch * model.widest_layer() > limits::kMaxLayerValues) {
      p.push_back("batch " + std::to_string(max_batch) + " x widest layer " + std::to_string(model.widest_layer()) +
                  " exceeds 2^24 values in one layer");
    }
  }
  if (p.empty()) {
    if (auto tested = tested_profile(name);
        tested && tested->canonical_settings_text() != canonical_settings_text()) {
      p.push_back("profile \"" + name + "\" reuses a tested profile's name with other settings");
    }
  }
  return p;
}

const std::vector<Profile>& tested_profiles() {
  static const std::vector<Profile> profiles = [] {
    Profile torchscript;
    torchscript.name = kTorchscriptProfile;
    torchscript.exporter = rf::kExporterTorchscript;
    Profile dynamo;
    dynamo.name = kDynamoProfile;
    dynamo.exporter = rf::kExporterDynamo;
    return std::vector<Profile>{torchscript, dynamo};
  }();
  return profiles;
}

std::optional<Profile> tested_profile(const std::string& name) {
  for (const auto& p : tested_profiles()) {
    if (p.name == name) return p;
  }
  return std::nullopt;
}

Profile tested_profile_named(const std::string& name) {
  if (auto p = tested_profile(name)) return *p;
  std::string known;
  for (const auto& t : tested_profiles()) known += (known.empty() ? "" : ", ") + t.name;
  throw UsageError("unknown profile \"" + name + "\" (tested profiles: " + known + ")");
}

bool is_tested_name(const std::string& name) { return tested_profile(name).has_value(); }

json Profile::to_json() const {
  switch (kind()) {
    case ModelKind::module: return module_profile_json(*this);
    case ModelKind::onnx_file: return onnx_file_profile_json(*this);
    case ModelKind::feed_forward: break;
  }
  const FeedForwardParts& ff = feed_forward();
  return json{{key::kName, name},         {key::kExporter, exporter},   {key::kOpsetVersion, opset_version},
              {key::kExportBatch, ff.export_batch}, {key::kDynamicBatch, ff.dynamic_batch}, {key::kBatches, ff.batches},
              {key::kRtol, rtol},         {key::kAtol, atol},           {key::kRuntime, runtime},
              {key::kProvider, provider}, {key::kDtype, ff.dtype},      {key::kModel, ff.model.to_json()}};
}

ModelKind profile_kind_of_json(const json& value) {
  if (!value.is_object()) return ModelKind::feed_forward;
  if (value.contains(rf::model_key::kOnnx)) return ModelKind::onnx_file;
  return value.contains(rf::kModule) ? ModelKind::module : ModelKind::feed_forward;
}

Profile profile_from_json(const json& value, std::vector<std::string>& problems) {
  switch (profile_kind_of_json(value)) {
    case ModelKind::onnx_file: return onnx_file_profile_from_json(value, problems);
    case ModelKind::module: return module_profile_from_json(value, problems);
    case ModelKind::feed_forward: break;
  }
  Profile p;
  FeedForwardParts& ff = p.feed_forward();
  if (!value.is_object()) {
    problems.push_back("profile: must be an object, not " + json_type_name(value));
    return p;
  }
  // Optional fields: read only those present, then name unknown keys.
  json present = json::object();
  FieldReader r(value, "profile", problems);
  r.may_hold({key::kName, key::kExporter, key::kExportBatch, key::kDynamicBatch, key::kBatches, key::kRuntime,
              key::kProvider, key::kDtype, key::kModel});
  auto has = [&](const char* key) { return value.contains(key); };
  if (has(key::kName)) r.string(key::kName, p.name); else problems.push_back("profile.name: missing");
  if (has(key::kExporter)) r.string(key::kExporter, p.exporter);
  read_opset_and_tolerances(value, r, p, problems);
  if (has(key::kExportBatch)) r.integer(key::kExportBatch, ff.export_batch);
  if (has(key::kDynamicBatch)) r.boolean(key::kDynamicBatch, ff.dynamic_batch);
  if (has(key::kBatches)) r.integer_list(key::kBatches, ff.batches);
  if (has(key::kRuntime)) r.string(key::kRuntime, p.runtime);
  if (has(key::kProvider)) r.string(key::kProvider, p.provider);
  if (has(key::kDtype)) r.string(key::kDtype, ff.dtype);
  if (has(key::kModel)) {
    if (const json* m = r.object(key::kModel)) {
      // Partial model objects take defaults for the missing keys.
      json full = ff.model.to_json();
      for (const auto& [k, v] : m->items()) {
        if (k == rf::config_key::kWeights && v.is_object()) {
          for (const auto& [wk, wv] : v.items()) full[rf::config_key::kWeights][wk] = wv;
        } else {
          full[k] = v;
        }
      }
      std::vector<std::string> model_problems;
      ff.model = model_config_from_json(full, model_problems);
      for (auto& mp : model_problems) problems.push_back("profile.model: " + mp);
    }
  }
  r.finish();
  return p;
}

void require_valid(const Profile& profile) {
  const auto p = profile.problems();
  if (p.empty()) return;
  std::string message = "invalid profile \"" + profile.name + "\":";
  for (const auto& item : p) message += "\n  - " + item;
  throw ConformanceError(message);
}

}  // namespace nnx
