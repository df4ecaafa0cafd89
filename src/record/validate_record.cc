// validate_record (doc/record-format.md §6): the form of a record (its 17 keys, strict JSON, the format), the
// simple sections and tolerances here; stages, cases and artifacts in validate_stages.cc,
// validate_cases.cc and validate_artifacts.cc (validate_internal.h); the settings rule in profile_rebuild.cc.
#include "record/validate_record.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>
#include <string_view>
#include <utility>

#include "base/json_fields.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/sha256.h"
#include "record/profile_rebuild.h"
#include "record/record.h"
#include "record/validate_internal.h"

namespace nnx {
namespace validation {

const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(std::string_view(key));  // one strlen, not one per comparison
  return it == object.end() ? kNull : *it;
}

std::string text_of(const json& value) { return display_json(value); }

std::string quote(std::string_view s) { return text_of(json(std::string(s))); }

std::string at(std::string_view where, std::string_view key) {
  std::string out(where);
  out += '.';
  out += key;
  return out;
}

bool exact_keys(const json& object, const std::string& where, std::span<const char* const> keys, Problems& out) {
  bool complete = true;
  std::array<std::string_view, 32> allowed{};  // the keys' lengths measured once, not per comparison
  const std::size_t count = std::min(keys.size(), allowed.size());
  for (std::size_t i = 0; i < count; ++i) allowed[i] = keys[i];
  const bool is_object = object.is_object();
  for (const char* k : keys) {
    if (!is_object || object.find(std::string_view(k)) == object.end()) {
      out.push_back(at(where, k) + ": missing");
      complete = false;
    }
  }
  for (const auto& [k, v] : object.items()) {
    const std::string_view name(k);
    if (std::none_of(allowed.begin(), allowed.begin() + count, [&](std::string_view a) { return a == name; }) &&
        std::none_of(keys.begin() + count, keys.end(), [&](const char* a) { return name == a; })) {
      out.push_back(at(where, k) + ": unknown key");
    }
  }
  return complete;
}

bool is_object_or_report(const json& value, const std::string& where, Problems& out) {
  if (value.is_object()) return true;
  out.push_back(where + ": must be an object, not " + json_type_name(value));
  return false;
}

namespace {

// ---- strict JSON ---------------------------------------------------------------------------------------

bool is_not_json(const json& value) {
  return (value.is_number_float() && !std::isfinite(value.get<double>())) || value.is_binary() || value.is_discarded();
}

// True when some value at any depth is non-finite, binary or discarded (no paths built: the common case).
bool holds_non_json(const json& record) {
  std::vector<const json*> todo = {&record};
  while (!todo.empty()) {
    const json* value = todo.back();
    todo.pop_back();
    if (is_not_json(*value)) return true;
    if (value->is_structured()) {
      for (auto it = value->begin(); it != value->end(); ++it) todo.push_back(&*it);
    }
  }
  return false;
}

// Names every such value by its path ("record.a.b[2]"); returns how many.
std::size_t name_non_json(const json& record, Problems& out) {
  std::size_t found = 0;
  std::vector<std::pair<const json*, std::string>> todo = {{&record, "record"}};
  while (!todo.empty()) {
    auto [value, path] = todo.back();
    todo.pop_back();
    if (value->is_number_float() && !std::isfinite(value->get<double>())) {
      const double d = value->get<double>();
      out.push_back("not strict JSON: " + path + " is " + (std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity"));
      ++found;
    } else if (value->is_binary() || value->is_discarded()) {
      out.push_back("not strict JSON: " + path + " is " + value->type_name() + ", not a JSON value");
      ++found;
    } else if (value->is_object()) {
      for (auto it = value->begin(); it != value->end(); ++it) todo.push_back({&*it, at(path, it.key())});
    } else if (value->is_array()) {
      for (std::size_t i = 0; i < value->size(); ++i) {
        todo.push_back({&(*value)[i], path + "[" + std::to_string(i) + "]"});
      }
    }
  }
  return found;
}

void check_strict_json(const json& record, Problems& out) {
  // Non-finite numbers and values JSON cannot hold, found without recursion (any depth); paths are built
  // only when there is one.
  const std::size_t found = holds_non_json(record) ? name_non_json(record, out) : 0;
  if (found) return;
  // What a canonical write/read round trip would refuse (invalid UTF-8, nesting too deep), found without
  // writing the text: the writer refuses exactly what would not read back unchanged (json_python.h).
  try {
    check_writable(record);
  } catch (const std::exception& e) {
    out.push_back(std::string("not strict JSON: ") + e.what());
  }
}

// ---- the top-level keys and the simple sections ----------------------------------------------------------

void check_top_level_keys(const json& record, Problems& out) {
  for (const char* key : rf::kRecordKeys) {
    if (!record.contains(std::string_view(key))) out.push_back(at("record", key) + ": missing");
  }
  static const std::vector<std::string_view> kKeys(rf::kRecordKeys.begin(), rf::kRecordKeys.end());
  for (const auto& [key, value] : record.items()) {
    if (std::find(kKeys.begin(), kKeys.end(), std::string_view(key)) == kKeys.end()) {
      out.push_back(at("record", key) + ": unknown key");
    }
  }
}

void check_config(const json& config, Problems& out) {
  const std::string where = at(rf::kConfig, rf::config_key::kWeightsSha256);
  const json& sha = member(config, rf::config_key::kWeightsSha256);
  if (!config.contains(rf::config_key::kWeightsSha256)) {
    out.push_back(where + ": missing");
  } else if (!sha.is_string() || !is_sha256_hex(sha.get<std::string>())) {
    out.push_back(where + ": " + text_of(sha) + " is not 64 lowercase hex digits");
  }
}

void check_exporter(const json& exporter, Problems& out) {
  namespace key = rf::exporter_key;
  exact_keys(exporter, rf::kExporter, key::kKeys, out);
  const json& options = member(exporter, key::kOptions);
  const std::string options_where = at(rf::kExporter, key::kOptions);
  if (exporter.contains(std::string_view(key::kOptions))) is_object_or_report(options, options_where, out);
  const json& option = member(options, key::kOptionExporter);
  if (exporter.contains(std::string_view(key::kName)) && option != exporter[key::kName]) {
    out.push_back(at(rf::kExporter, key::kName) + ": " + text_of(exporter[key::kName]) + " is unlike " +
                  at(options_where, key::kOptionExporter) + " " + text_of(option));
  }
}

void check_runtime(const json& runtime, Problems& out) {
  namespace key = rf::runtime_key;
  exact_keys(runtime, rf::kRuntime, key::kKeys, out);
  static const json kSession = session_options_json();  // constant: built once
  if (runtime.contains(std::string_view(key::kSession)) && !same_canonical(runtime[key::kSession], kSession)) {
    out.push_back(at(rf::kRuntime, key::kSession) + ": other session options " + text_of(runtime[key::kSession]) +
                  " than " + text_of(kSession));
  }
}

void check_sections(const json& record, Problems& out) {
  if (record.contains(std::string_view(rf::kFormat)) && record[rf::kFormat] != kFormat) {
    out.push_back(std::string(rf::kFormat) + ": must be " + quote(kFormat) + ", not " + text_of(record[rf::kFormat]));
  }
  if (record.contains(std::string_view(rf::kProfile)) && !record[rf::kProfile].is_string()) {
    out.push_back(std::string(rf::kProfile) + ": must be a string, not " + json_type_name(record[rf::kProfile]));
  }
  for (const char* key : {rf::kSource, rf::kVersions}) {
    if (record.contains(std::string_view(key))) is_object_or_report(record[key], key, out);
  }
  if (record.contains(std::string_view(rf::kConfig)) && is_object_or_report(record[rf::kConfig], rf::kConfig, out)) {
    check_config(record[rf::kConfig], out);
  }
  if (record.contains(std::string_view(rf::kExporter)) && is_object_or_report(record[rf::kExporter], rf::kExporter, out)) {
    check_exporter(record[rf::kExporter], out);
  }
  if (record.contains(std::string_view(rf::kRuntime)) && is_object_or_report(record[rf::kRuntime], rf::kRuntime, out)) {
    check_runtime(record[rf::kRuntime], out);
  }
}

void check_tolerances(const json& record, Problems& out) {
  if (!record.contains(std::string_view(rf::kTolerances))) return;
  const json& tolerances = record[rf::kTolerances];
  if (!is_object_or_report(tolerances, rf::kTolerances, out)) return;
  exact_keys(tolerances, rf::kTolerances, rf::tolerance_key::kKeys, out);
  for (const char* key : rf::tolerance_key::kKeys) {
    if (!tolerances.contains(std::string_view(key))) continue;
    double d = 0.0;
    if (!json_number(tolerances[key], d) || !std::isfinite(d) || d < 0.0) {
      out.push_back(at(rf::kTolerances, key) + ": must be a finite number >= 0, not " + text_of(tolerances[key]));
    }
  }
}

void add_unique(Problems& all, const Problems& found) {
  std::set<std::string> seen(all.begin(), all.end());
  for (const auto& p : found) {
    if (seen.insert(p).second) all.push_back(p);
  }
}

}  // namespace
}  // namespace validation

std::vector<std::string> record_problems(const json& record) {
  using namespace validation;
  if (!record.is_object()) return {"record: must be an object, not " + json_type_name(record)};
  Problems out;
  check_top_level_keys(record, out);
  check_strict_json(record, out);
  check_sections(record, out);
  const Stages view = check_stages(record, out);
  check_summary(record, view, out);
  check_cases(record, view, out);
  check_model_state(record, view, out);
  check_artifacts(record, view, out);
  check_opset(record, view, out);
  check_tolerances(record, out);
  Problems unique;
  add_unique(unique, out);
  add_unique(unique, settings_problems(record));
  return unique;
}

void validate_record(const json& record) {
  const std::vector<std::string> problems = record_problems(record);
  if (problems.empty()) return;
  std::string message = "invalid record";
  const json& profile = validation::member(record, rf::kProfile);
  if (profile.is_string()) message += " for profile " + validation::quote(profile.get<std::string>());
  message += " (" + std::to_string(problems.size()) + (problems.size() == 1 ? " problem" : " problems") + "):";
  for (const auto& p : problems) message += "\n  - " + p;
  throw ConformanceError(message);
}

}  // namespace nnx
