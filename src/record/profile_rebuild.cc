#include "record/profile_rebuild.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "base/json_fields.h"
#include "base/json_python.h"

namespace nnx {
namespace {

const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// A number (never a boolean) as a float, as Python's float() makes it; anything else as given.
json as_float(const json& value) {
  double d = 0.0;
  if (json_number(value, d)) return json(d);
  return value;
}

std::string text_of(const json& value) { return display_json(value); }

std::string shortened(std::string text) {
  constexpr std::size_t kMax = 160;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

std::string case_label(const json& cases, std::size_t i) {
  std::string label = "input_cases[" + std::to_string(i) + "]";
  const json& name = member(cases[i], "name");
  if (name.is_string()) label += " (" + name.get<std::string>() + ")";
  return label;
}

// Each place where `actual` differs from `expected`, as "<path>: <actual>, expected <expected>".
void differences(const json& actual, const json& expected, const std::string& path, std::vector<std::string>& out) {
  constexpr std::size_t kMaxDifferences = 12;
  if (out.size() >= kMaxDifferences) return;
  if (actual.is_object() && expected.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : actual.items()) keys.insert(k);
    for (const auto& [k, v] : expected.items()) keys.insert(k);
    for (const auto& k : keys) {
      const std::string sub = path.empty() ? k : path + "." + k;
      if (!actual.contains(k)) {
        out.push_back(sub + ": missing, expected " + shortened(text_of(expected[k])));
      } else if (!expected.contains(k)) {
        out.push_back(sub + ": " + shortened(text_of(actual[k])) + " is not expected");
      } else {
        differences(actual[k], expected[k], sub, out);
      }
      if (out.size() >= kMaxDifferences) return;
    }
    return;
  }
  if (actual.is_array() && expected.is_array() && actual.size() == expected.size()) {
    for (std::size_t i = 0; i < actual.size(); ++i) {
      differences(actual[i], expected[i], path + "[" + std::to_string(i) + "]", out);
    }
    return;
  }
  const std::string a = text_of(actual);
  const std::string e = text_of(expected);
  if (a != e) out.push_back(path + ": " + shortened(a) + ", expected " + shortened(e));
}

// The exporter options a Profile writes: types, then the values a Profile derives from them.
void read_exporter_options(const json& record, Profile& p, std::vector<std::string>& problems) {
  const json& exporter = member(record, "exporter");
  if (!exporter.is_object()) {
    problems.push_back("exporter: must be an object, not " + json_type_name(exporter));
    return;
  }
  FieldReader ex(exporter, "exporter", problems);
  ex.allow_extra("name");
  const json* options = ex.object("options");
  if (!options) return;
  FieldReader r(*options, "exporter.options", problems);
  bool dynamo = false;
  std::vector<std::string> input_names, output_names;
  const bool named = r.string("exporter", p.exporter);
  const bool flagged = r.boolean("dynamo", dynamo);
  r.integer("opset_version", p.opset_version);
  r.boolean("dynamic_batch", p.dynamic_batch);
  r.integer("export_batch", p.export_batch);
  if (r.string_list("input_names", input_names) && input_names != std::vector<std::string>{"features"}) {
    problems.push_back("exporter.options.input_names: must be [\"features\"], not " + text_of(input_names));
  }
  if (r.string_list("output_names", output_names) && output_names != std::vector<std::string>{"logits"}) {
    problems.push_back("exporter.options.output_names: must be [\"logits\"], not " + text_of(output_names));
  }
  r.finish();
  if (named && flagged && dynamo != p.dynamo()) {
    problems.push_back(std::string("exporter.options.dynamo: ") + (dynamo ? "true" : "false") +
                       " although the exporter is \"" + p.exporter + "\"");
  }
}

// Batches from the match cases in order (each case's shape[0]).
void read_batches(const json& cases, Profile& p, std::vector<std::string>& problems) {
  p.batches.clear();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (member(cases[i], "expect") != "match") continue;
    const json& shape = member(cases[i], "shape");
    if (!shape.is_array() || shape.empty() || !shape[0].is_number_integer() ||
        (shape[0].is_number_unsigned() && shape[0].get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      problems.push_back(case_label(cases, i) + ": its shape gives no batch size");
      continue;
    }
    p.batches.push_back(shape[0].get<std::int64_t>());
  }
}

// The record's case list against the one the rebuilt Profile produces, field by field.
void compare_cases(const json& cases, const Profile& p, std::vector<std::string>& problems) {
  const auto expected = p.input_cases();
  if (cases.size() != expected.size()) {
    problems.push_back("input_cases: " + std::to_string(cases.size()) + " cases, but a profile with batches " +
                       text_of(p.batches) + " produces " + std::to_string(expected.size()) +
                       " (one per match case, then one refusal case)");
    return;
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const InputCase& e = expected[i];
    const json want = {{"name", e.name}, {"shape", e.shape}, {"seed", e.seed}, {"expect", e.expect}};
    for (const char* key : {"expect", "name", "shape", "seed"}) {
      const json& got = member(cases[i], key);
      if (text_of(got) != text_of(want[key])) {
        problems.push_back(case_label(cases, i) + "." + key + ": " + shortened(text_of(got)) +
                           " is not what a profile produces here (" + text_of(want[key]) + ")");
      }
    }
  }
}

}  // namespace

json record_settings(const json& record) {
  const json& tolerances = member(record, "tolerances");
  const json& runtime = member(record, "runtime");
  const json& raw_cases = member(record, "input_cases");
  json cases = raw_cases;
  if (raw_cases.is_array()) {
    cases = json::array();
    for (const auto& c : raw_cases) {
      cases.push_back({{"name", member(c, "name")},
                       {"shape", member(c, "shape")},
                       {"seed", member(c, "seed")},
                       {"expect", member(c, "expect")}});
    }
  }
  json config = member(record, "config");
  if (config.is_object()) {
    config.erase("weights_sha256");
    if (config.contains("dropout")) config["dropout"] = as_float(config["dropout"]);
    if (config.contains("weights") && config["weights"].is_object() && config["weights"].contains("std")) {
      config["weights"]["std"] = as_float(config["weights"]["std"]);
    }
  }
  return json{{"tolerances", {{"rtol", as_float(member(tolerances, "rtol"))},
                              {"atol", as_float(member(tolerances, "atol"))}}},
              {"input cases", cases},
              {"dtype", member(record, "dtype")},
              {"runtime", json::array({member(runtime, "name"), member(runtime, "provider")})},
              {"exporter options", member(member(record, "exporter"), "options")},
              {"model config", config},
              {"artifact directory", member(member(record, "artifacts"), "directory")}};
}

Profile profile_from_record(const json& record, std::vector<std::string>& problems) {
  Profile p;
  if (!record.is_object()) {
    problems.push_back("record: must be an object, not " + json_type_name(record));
    return p;
  }
  const json& name = member(record, "profile");
  if (name.is_string()) {
    p.name = name.get<std::string>();
  } else {
    problems.push_back("profile: must be a string, not " + json_type_name(name));
  }
  read_exporter_options(record, p, problems);

  const json& tolerances = member(record, "tolerances");
  FieldReader tol(tolerances, "tolerances", problems);
  tol.number("rtol", p.rtol);
  tol.number("atol", p.atol);
  tol.finish();

  const json& runtime = member(record, "runtime");
  FieldReader rt(runtime, "runtime", problems);
  rt.string("name", p.runtime);
  rt.string("provider", p.provider);

  const json& dtype = member(record, "dtype");
  if (dtype.is_string()) {
    p.dtype = dtype.get<std::string>();
  } else {
    problems.push_back("dtype: must be a string, not " + json_type_name(dtype));
  }

  std::vector<std::string> config_problems;
  p.model = model_config_from_json(member(record, "config"), config_problems);
  problems.insert(problems.end(), config_problems.begin(), config_problems.end());

  const json& cases = member(record, "input_cases");
  if (!cases.is_array()) {
    problems.push_back("input_cases: must be a list, not " + json_type_name(cases));
    return p;
  }
  const std::size_t before = problems.size();
  read_batches(cases, p, problems);
  if (problems.size() == before && config_problems.empty()) compare_cases(cases, p, problems);
  return p;
}

std::vector<std::string> settings_problems(const json& record) {
  std::vector<std::string> problems;
  const json& name = member(record, "profile");
  const json actual = record_settings(record);
  json expected;
  std::string against;
  if (name.is_string() && is_tested_name(name.get<std::string>())) {
    expected = tested_profile(name.get<std::string>())->settings();
    against = "the tested profile \"" + name.get<std::string>() + "\"";
  } else {
    std::vector<std::string> rebuild;
    const Profile p = profile_from_record(record, rebuild);
    if (rebuild.empty()) {
      for (const auto& problem : p.problems()) rebuild.push_back("settings: " + problem);
    }
    if (!rebuild.empty()) {
      problems.push_back("settings: do not rebuild into a valid profile");
      problems.insert(problems.end(), rebuild.begin(), rebuild.end());
      return problems;
    }
    expected = p.settings();
    against = "the rebuilt profile \"" + p.name + "\"";
  }
  if (text_of(actual) == text_of(expected)) return problems;
  std::vector<std::string> where;
  differences(actual, expected, "", where);
  if (where.empty()) where.push_back("canonical text");
  for (const auto& w : where) problems.push_back("settings differ from " + against + " at " + w);
  return problems;
}

}  // namespace nnx
