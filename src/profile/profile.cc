#include "profile/profile.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "base/failure.h"
#include "base/json_fields.h"
#include "base/json_python.h"
#include "base/limits.h"

namespace nnx {

json Profile::exporter_options() const {
  return json{{"exporter", exporter},
              {"dynamo", dynamo()},
              {"opset_version", opset_version},
              {"dynamic_batch", dynamic_batch},
              {"export_batch", export_batch},
              {"input_names", json::array({"features"})},
              {"output_names", json::array({"logits"})}};
}

std::vector<std::string> Profile::requirements() const {
  std::vector<std::string> r = {"torch", "onnx", "onnxruntime"};
  if (dynamo()) r.push_back("onnxscript");
  return r;
}

std::vector<InputCase> Profile::input_cases() const {
  std::vector<InputCase> cases;
  for (std::int64_t b : batches) {
    cases.push_back({"batch-" + std::to_string(b), {b, model.input_dim}, static_cast<std::uint64_t>(1000 + b),
                     "match"});
  }
  const std::int64_t wrong = model.input_dim + 1;
  cases.push_back({"width-" + std::to_string(wrong), {3, wrong}, 2000, "rejected"});
  return cases;
}

json Profile::settings() const {
  json cases = json::array();
  for (const auto& c : input_cases()) {
    cases.push_back({{"name", c.name}, {"shape", c.shape}, {"seed", c.seed}, {"expect", c.expect}});
  }
  return json{{"tolerances", {{"rtol", rtol}, {"atol", atol}}},
              {"input cases", cases},
              {"dtype", dtype},
              {"runtime", json::array({runtime, provider})},
              {"exporter options", exporter_options()},
              {"model config", model.to_json()},
              {"artifact directory", name}};
}

std::string Profile::canonical_settings_text() const { return dumps_canonical(settings()); }

std::vector<std::string> Profile::problems() const {
  std::vector<std::string> p;
  if (!is_plain_name(name)) {
    p.push_back("profile name \"" + name + "\" is not a plain name ([A-Za-z0-9._-]+, not . or ..)");
  }
  if (exporter != "torchscript" && exporter != "dynamo") {
    p.push_back("exporter must be \"torchscript\" or \"dynamo\", not \"" + exporter + "\"");
  }
  auto bounded = [&](const std::string& what, std::int64_t v) {
    if (v < 1 || v > limits::kMaxUnits) {
      p.push_back(what + " must be an integer in 1.." + std::to_string(limits::kMaxUnits) + ", not " +
                  std::to_string(v));
    }
  };
  bounded("opset_version", opset_version);
  bounded("export_batch", export_batch);
  if (batches.empty()) p.push_back("batches must hold at least one batch size");
  if (static_cast<std::int64_t>(batches.size()) > limits::kMaxBatches) {
    p.push_back("batches holds " + std::to_string(batches.size()) + " sizes; at most " +
                std::to_string(limits::kMaxBatches) + " are allowed");
  }
  for (std::size_t i = 0; i < batches.size(); ++i) bounded("batches[" + std::to_string(i) + "]", batches[i]);
  if (!std::isfinite(rtol) || rtol < 0) p.push_back("rtol must be finite and >= 0");
  if (!std::isfinite(atol) || atol < 0) p.push_back("atol must be finite and >= 0");
  if (runtime != "onnxruntime") p.push_back("runtime must be \"onnxruntime\", not \"" + runtime + "\"");
  if (provider.empty()) p.push_back("provider must be a non-empty string");
  if (dtype != "float32") p.push_back("dtype must be \"float32\", not \"" + dtype + "\"");
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
    torchscript.exporter = "torchscript";
    Profile dynamo;
    dynamo.name = kDynamoProfile;
    dynamo.exporter = "dynamo";
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
  return json{{"name", name},         {"exporter", exporter},   {"opset_version", opset_version},
              {"export_batch", export_batch}, {"dynamic_batch", dynamic_batch}, {"batches", batches},
              {"rtol", rtol},         {"atol", atol},           {"runtime", runtime},
              {"provider", provider}, {"dtype", dtype},         {"model", model.to_json()}};
}

Profile profile_from_json(const json& value, std::vector<std::string>& problems) {
  Profile p;
  if (!value.is_object()) {
    problems.push_back("profile: must be an object, not " + json_type_name(value));
    return p;
  }
  // Optional fields: read only those present, then name unknown keys.
  json present = json::object();
  FieldReader r(value, "profile", problems);
  auto has = [&](const char* key) { return value.contains(key); };
  if (has("name")) r.string("name", p.name); else problems.push_back("profile.name: missing");
  if (has("exporter")) r.string("exporter", p.exporter);
  if (has("opset_version")) r.integer("opset_version", p.opset_version);
  if (has("export_batch")) r.integer("export_batch", p.export_batch);
  if (has("dynamic_batch")) r.boolean("dynamic_batch", p.dynamic_batch);
  if (has("batches")) r.integer_list("batches", p.batches);
  if (has("rtol")) r.number("rtol", p.rtol);
  if (has("atol")) r.number("atol", p.atol);
  if (has("runtime")) r.string("runtime", p.runtime);
  if (has("provider")) r.string("provider", p.provider);
  if (has("dtype")) r.string("dtype", p.dtype);
  if (has("model")) {
    if (const json* m = r.object("model")) {
      // Partial model objects take defaults for the missing keys.
      json full = p.model.to_json();
      for (const auto& [k, v] : m->items()) {
        if (k == "weights" && v.is_object()) {
          for (const auto& [wk, wv] : v.items()) full["weights"][wk] = wv;
        } else {
          full[k] = v;
        }
      }
      std::vector<std::string> model_problems;
      p.model = model_config_from_json(full, model_problems);
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
