#include "record/profile_rebuild.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "base/json_fields.h"
#include "base/json_python.h"
#include "record/record_format.h"
#include "record/settings_in_place.h"

namespace nnx {
namespace {

// A number (never a boolean) as a float, as Python's float() makes it; anything else as given.
json as_float(const json& value) {
  double d = 0.0;
  if (json_number(value, d)) return json(d);
  return value;
}

std::string text_of(const json& value) { return display_json(value); }

// record[key] as a string into `out`, else "<key>: must be a string, not <type>".
void read_string(const json& record, const char* key, std::string& out, std::vector<std::string>& problems) {
  const json& value = json_member(record, key);
  if (value.is_string()) {
    out = value.get<std::string>();
  } else {
    problems.push_back(std::string(key) + ": must be a string, not " + json_type_name(value));
  }
}

std::string shortened(std::string text) {
  constexpr std::size_t kMax = 160;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

std::string case_label(const json& cases, std::size_t i) {
  std::string label = std::string(rf::kInputCases) + "[" + std::to_string(i) + "]";
  const json& name = json_member(cases[i], rf::case_key::kName);
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
  namespace key = rf::exporter_key;
  const json& exporter = json_member(record, rf::kExporter);
  if (!exporter.is_object()) {
    problems.push_back(std::string(rf::kExporter) + ": must be an object, not " + json_type_name(exporter));
    return;
  }
  FieldReader ex(exporter, rf::kExporter, problems);
  ex.allow_extra(key::kName);
  const json* options = ex.object(key::kOptions);
  if (!options) return;
  const std::string where = std::string(rf::kExporter) + "." + key::kOptions;
  FieldReader r(*options, where, problems);
  bool dynamo = false;
  std::vector<std::string> input_names, output_names;
  const bool named = r.string(key::kOptionExporter, p.exporter);
  const bool flagged = r.boolean(key::kOptionDynamo, dynamo);
  r.integer(key::kOptionOpsetVersion, p.opset_version);
  r.boolean(key::kOptionDynamicBatch, p.feed_forward().dynamic_batch);
  r.integer(key::kOptionExportBatch, p.feed_forward().export_batch);
  const Profile defaults;  // the names every Profile writes
  const json written = defaults.exporter_options();
  const auto want_inputs = written[key::kOptionInputNames].get<std::vector<std::string>>();
  const auto want_outputs = written[key::kOptionOutputNames].get<std::vector<std::string>>();
  if (r.string_list(key::kOptionInputNames, input_names) && input_names != want_inputs) {
    problems.push_back(where + "." + key::kOptionInputNames + ": must be " + text_of(want_inputs) + ", not " +
                       text_of(input_names));
  }
  if (r.string_list(key::kOptionOutputNames, output_names) && output_names != want_outputs) {
    problems.push_back(where + "." + key::kOptionOutputNames + ": must be " + text_of(want_outputs) + ", not " +
                       text_of(output_names));
  }
  r.finish();
  if (named && flagged && dynamo != p.dynamo()) {
    problems.push_back(where + "." + key::kOptionDynamo + ": " + (dynamo ? "true" : "false") +
                       " although the exporter is \"" + p.exporter + "\"");
  }
}

// Batches from the match cases in order (each case's shape[0]).
void read_batches(const json& cases, Profile& p, std::vector<std::string>& problems) {
  p.feed_forward().batches.clear();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (json_member(cases[i], rf::case_key::kExpect) != rf::kExpectMatch) continue;
    const json& shape = json_member(cases[i], rf::case_key::kShape);
    if (!shape.is_array() || shape.empty() || !shape[0].is_number_integer() ||
        (shape[0].is_number_unsigned() && shape[0].get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      problems.push_back(case_label(cases, i) + ": its shape gives no batch size");
      continue;
    }
    p.feed_forward().batches.push_back(shape[0].get<std::int64_t>());
  }
}

// The record's case list against the one the rebuilt Profile produces, field by field.
void compare_cases(const json& cases, const Profile& p, std::vector<std::string>& problems) {
  const auto expected = p.input_cases();
  if (cases.size() != expected.size()) {
    problems.push_back(std::string(rf::kInputCases) + ": " + std::to_string(cases.size()) +
                       " cases, but a profile with batches " +
                       text_of(p.feed_forward().batches) + " produces " + std::to_string(expected.size()) +
                       " (one per match case, then one refusal case)");
    return;
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const InputCase& e = expected[i];
    namespace key = rf::case_key;
    const json want = {{key::kName, e.name}, {key::kShape, e.shape()}, {key::kSeed, e.seed}, {key::kExpect, e.expect}};
    for (const char* field : {key::kExpect, key::kName, key::kShape, key::kSeed}) {
      const json& got = json_member(cases[i], field);
      if (!same_canonical(got, want[field])) {
        problems.push_back(case_label(cases, i) + "." + field + ": " + shortened(text_of(got)) +
                           " is not what a profile produces here (" + text_of(want[field]) + ")");
      }
    }
  }
}

// The settings of the tested profile `name` (constant: built once per process), or null.
const json* tested_settings(std::string_view name) {
  static const std::vector<std::pair<std::string, json>> settings = [] {
    std::vector<std::pair<std::string, json>> out;
    for (const auto& p : tested_profiles()) out.emplace_back(p.name, p.settings());
    return out;
  }();
  for (const auto& [tested, value] : settings) {
    if (tested == name) return &value;
  }
  return nullptr;
}

}  // namespace

json record_settings(const json& record) {
  namespace key = rf::settings_key;
  const json& tolerances = json_member(record, rf::kTolerances);
  const json& runtime = json_member(record, rf::kRuntime);
  const json& raw_cases = json_member(record, rf::kInputCases);
  json cases = raw_cases;
  if (raw_cases.is_array()) {
    cases = json::array();
    for (const auto& c : raw_cases) {
      json stated = json::object();
      for (const char* field : kCaseSettings) stated[field] = json_member(c, field);
      cases.push_back(std::move(stated));
    }
  }
  json config = json_member(record, rf::kConfig);
  if (config.is_object()) {
    namespace cfg = rf::config_key;
    config.erase(cfg::kWeightsSha256);
    if (config.contains(cfg::kDropout)) config[cfg::kDropout] = as_float(config[cfg::kDropout]);
    if (config.contains(cfg::kWeights) && config[cfg::kWeights].is_object() &&
        config[cfg::kWeights].contains(cfg::kStd)) {
      config[cfg::kWeights][cfg::kStd] = as_float(config[cfg::kWeights][cfg::kStd]);
    }
  }
  return json{{key::kTolerances, {{rf::tolerance_key::kRtol, as_float(json_member(tolerances, rf::tolerance_key::kRtol))},
                                  {rf::tolerance_key::kAtol, as_float(json_member(tolerances, rf::tolerance_key::kAtol))}}},
              {key::kInputCases, cases},
              {key::kDtype, json_member(record, rf::kDtype)},
              {key::kRuntime, json::array({json_member(runtime, rf::runtime_key::kName),
                                           json_member(runtime, rf::runtime_key::kProvider)})},
              {key::kExporterOptions, json_member(json_member(record, rf::kExporter), rf::exporter_key::kOptions)},
              {key::kModelConfig, config},
              {key::kArtifactDirectory, json_member(json_member(record, rf::kArtifacts), rf::artifacts_key::kDirectory)}};
}

Profile profile_from_record(const json& record, std::vector<std::string>& problems) {
  Profile p;
  if (!record.is_object()) {
    problems.push_back("record: must be an object, not " + json_type_name(record));
    return p;
  }
  read_string(record, rf::kProfile, p.name, problems);
  read_exporter_options(record, p, problems);

  FieldReader tol(json_member(record, rf::kTolerances), rf::kTolerances, problems);
  tol.number(rf::tolerance_key::kRtol, p.rtol);
  tol.number(rf::tolerance_key::kAtol, p.atol);
  tol.finish();

  FieldReader rt(json_member(record, rf::kRuntime), rf::kRuntime, problems);
  rt.string(rf::runtime_key::kName, p.runtime);
  rt.string(rf::runtime_key::kProvider, p.provider);

  read_string(record, rf::kDtype, p.feed_forward().dtype, problems);

  std::vector<std::string> config_problems;
  p.feed_forward().model = model_config_from_json(json_member(record, rf::kConfig), config_problems);
  problems.insert(problems.end(), config_problems.begin(), config_problems.end());

  const json& cases = json_member(record, rf::kInputCases);
  if (!cases.is_array()) {
    problems.push_back(std::string(rf::kInputCases) + ": must be a list, not " + json_type_name(cases));
    return p;
  }
  const std::size_t before = problems.size();
  read_batches(cases, p, problems);
  if (problems.size() == before && config_problems.empty()) compare_cases(cases, p, problems);
  return p;
}

std::vector<std::string> settings_problems(const JsonView& record) {
  if (tested_settings_match(record)) return {};  // the common case, decided in place (settings_in_place.h)
  return settings_problems(record.to_json());
}

std::vector<std::string> settings_problems(const json& record) {
  std::vector<std::string> problems;
  const json& name = json_member(record, rf::kProfile);
  const json* tested = name.is_string() ? tested_settings(name.get<std::string>()) : nullptr;
  const json actual = record_settings(record);
  json expected;
  std::string against;
  if (tested) {
    expected = *tested;
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
  if (same_canonical(actual, expected)) return problems;
  std::vector<std::string> where;
  differences(actual, expected, "", where);
  if (where.empty()) where.push_back("canonical text");
  for (const auto& w : where) problems.push_back("settings differ from " + against + " at " + w);
  return problems;
}

}  // namespace nnx
