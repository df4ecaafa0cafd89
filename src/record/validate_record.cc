// validate_record (doc/record-format.md §6): the form of a record (its 17 keys, strict JSON, the format), the
// simple sections and tolerances here; stages, cases and artifacts in validate_stages.cc,
// validate_cases.cc and validate_artifacts.cc (validate_internal.h); the settings rule in profile_rebuild.cc.
// A module record (§10: its format says so) has its 19 keys, the same shared rules, and its own parts in
// validate_module_*.cc (validate_module.h) instead of config, dtype, v1's cases and the settings rule.
#include "record/validate_record.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>
#include <span>
#include <string_view>
#include <utility>

#include "base/built_in_model_record.h"
#include "base/json_fields.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/model_kind.h"
#include "base/model_record_vocabulary.h"
#include "base/module_record_vocabulary.h"
#include "base/sha256.h"
#include "base/tolerance_compare.h"
#include "record/profile_rebuild.h"
#include "record/record.h"
#include "record/validate_internal.h"
#include "record/validate_module.h"

namespace nnx {
namespace validation {

std::string text_of(const JsonView& value) { return value.exists() ? display_json(value.to_json()) : "null"; }

std::string text_of(const json& value) { return display_json(value); }

std::string quote(std::string_view s) { return text_of(json(std::string(s))); }

std::string at(std::string_view where, std::string_view key) {
  std::string out(where);
  out += '.';
  out += key;
  return out;
}

bool exact_keys(const JsonView& object, std::string_view where, std::span<const char* const> keys, Problems& out) {
  bool complete = true;
  std::size_t present = 0;
  for (const char* k : keys) {
    if (object.contains(k)) {
      ++present;
    } else {
      out.push_back(at(where, k) + ": missing");
      complete = false;
    }
  }
  if (present != object.size()) report_unknown_keys(object, where, keys, out);  // keys are unique
  return complete;
}

void report_unknown_keys(const JsonView& object, std::string_view where, std::span<const char* const> keys, Problems& out) {
  std::vector<std::string_view> unknown;
  for (const auto& member : object.members()) {
    const std::string_view k = member.key;
    if (std::none_of(keys.begin(), keys.end(), [&](const char* a) { return k == a; })) unknown.push_back(k);
  }
  std::sort(unknown.begin(), unknown.end());  // in key order, as a json object holds them
  for (std::string_view k : unknown) out.push_back(at(where, k) + ": unknown key");
}

bool is_object_or_report(const JsonView& value, std::string_view where, Problems& out) {
  if (value.is_object()) return true;
  out.push_back(std::string(where) + ": must be an object, not " + json_type_name(value));
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

// What a record's kind changes in its rules, decided once from its format (base/model_kind.h; a format no
// kind has is read as v1's, whose format rule, check_sections, then names the three).
struct KindRules {
  std::span<const char* const> keys;  // its top-level keys
  bool tensor_cases;                   // its cases name stored tensors (§10, §11): no config, v1 shapes or settings rule
};

KindRules kind_rules(const JsonView& record) {
  const JsonView format = record[rf::kFormat];
  const ModelKindFacts& kind = record_kind_facts(format.is_string() ? format.string() : "");
  switch (kind.form) {
    case RecordForm::brief: return {kind.record_keys, false};
    case RecordForm::named_tensors: return {kind.record_keys, true};
  }
  return {kind.record_keys, false};
}

void check_config(const JsonView& config, Problems& out) {
  const auto where = [] { return at(rf::kConfig, rf::config_key::kWeightsSha256); };
  const JsonView sha = member(config, rf::config_key::kWeightsSha256);
  if (!sha.exists()) {
    out.push_back(where() + ": missing");
  } else if (!sha.is_string() || !is_sha256_hex(sha.string())) {
    out.push_back(where() + ": " + text_of(sha) + " is not 64 lowercase hex digits");
  }
}

void check_exporter(const JsonView& exporter, Problems& out) {
  namespace key = rf::exporter_key;
  exact_keys(exporter, rf::kExporter, key::kKeys, out);
  const JsonView options = member(exporter, key::kOptions);
  const auto options_where = [] { return at(rf::kExporter, key::kOptions); };
  if (options.exists()) is_object_or_report(options, options_where(), out);
  const JsonView option = member(options, key::kOptionExporter);
  const JsonView name = exporter[key::kName];
  if (name.exists() && !(option == name)) {
    out.push_back(at(rf::kExporter, key::kName) + ": " + text_of(name) + " is unlike " +
                  at(options_where(), key::kOptionExporter) + " " + text_of(option));
  }
}

void check_runtime(const JsonView& runtime, bool v1, Problems& out) {
  namespace key = rf::runtime_key;
  if (!v1 && runtime[key::kProviderOptions].exists()) {
    static constexpr std::array<const char*, 5> kWithOptions = {key::kName, key::kVersion, key::kProvider,
                                                                key::kSession, key::kProviderOptions};
    exact_keys(runtime, rf::kRuntime, kWithOptions, out);
    check_provider_options(runtime, out);
  } else {
    exact_keys(runtime, rf::kRuntime, key::kKeys, out);  // a v1 record's provider takes no options
  }
  static const json kSession = session_options_json();  // constant: built once
  const JsonView session = runtime[key::kSession];
  if (!session.exists()) return;
  if (!v1) return check_settings(session, out);
  if (!same_canonical(session, kSession)) {
    out.push_back(at(rf::kRuntime, key::kSession) + ": other session options " + text_of(session) + " than " +
                  text_of(kSession) + " (a tested profile's record runs with the brief's settings)");
  }
}

// A v1 record holds only §1's nine failure classes (base/failure.h is_v1_failure): the published original's
// validator knows no other. Its failure and each stage's are checked; a case's classes are parity's, all v1.
void check_v1_failures(const JsonView& record, Problems& out) {
  const auto check = [&](const JsonView& failure, const std::string& where) {
    if (!failure.is_string()) return;
    const auto parsed = parse_failure(failure.string());
    if (parsed && !is_v1_failure(*parsed)) {
      out.push_back(where + ": " + text_of(failure) + " is a successor-format class (" + std::string(kModuleFormat) +
                    ", " + std::string(kModelFormat) + "), not one of " + std::string(kFormat) + "'s");
    }
  };
  check(record[rf::kFailure], rf::kFailure);
  for (const char* stage : kStageNames) check(record[rf::kStages][stage][rf::stage_key::kFailure],
                                              at(at(rf::kStages, stage), rf::stage_key::kFailure));
}

// The sections every format shares, and v1's config.
void check_sections(const JsonView& record, const KindRules& kind, Problems& out) {
  if (const JsonView format = record[rf::kFormat]; !kind.tensor_cases && format.exists() && !format.is_text(kFormat)) {
    out.push_back(std::string(rf::kFormat) + ": must be " + quote(kFormat) + ", " + quote(kModuleFormat) + " or " +
                  quote(kModelFormat) + ", not " + text_of(format));
  }
  if (const JsonView profile = record[rf::kProfile]; profile.exists() && !profile.is_string()) {
    out.push_back(std::string(rf::kProfile) + ": must be a string, not " + json_type_name(profile));
  }
  for (const char* key : {rf::kSource, rf::kVersions}) {
    if (const JsonView section = record[key]; section.exists()) is_object_or_report(section, key, out);
  }
  if (const JsonView config = record[rf::kConfig];
      !kind.tensor_cases && config.exists() && is_object_or_report(config, rf::kConfig, out)) {
    check_config(config, out);
  }
  if (const JsonView exporter = record[rf::kExporter];
      exporter.exists() && is_object_or_report(exporter, rf::kExporter, out)) {
    check_exporter(exporter, out);
  }
  if (const JsonView runtime = record[rf::kRuntime]; runtime.exists() && is_object_or_report(runtime, rf::kRuntime, out)) {
    check_runtime(runtime, !kind.tensor_cases, out);
  }
}

void check_tolerances(const JsonView& record, Problems& out) {
  const JsonView tolerances = record[rf::kTolerances];
  if (!tolerances.exists()) return;
  if (!is_object_or_report(tolerances, rf::kTolerances, out)) return;
  // A module record's precision (validate_precision.cc) is the one key beside rtol and atol.
  static constexpr std::array<const char*, 3> kWithPrecision = {rf::tolerance_key::kRtol, rf::tolerance_key::kAtol,
                                                                rf::precision_key::kPrecision};
  const bool precision = takes_precision(record) && tolerances[rf::precision_key::kPrecision].exists();
  if (precision) exact_keys(tolerances, rf::kTolerances, kWithPrecision, out);
  else exact_keys(tolerances, rf::kTolerances, rf::tolerance_key::kKeys, out);
  for (const char* key : rf::tolerance_key::kKeys) {
    const JsonView value = tolerances[key];
    if (!value.exists()) continue;
    double d = 0.0;
    if (!json_number(value, d)) d = -1.0;  // not a number: the first half of the rule names it
    if (auto problem = tolerance_problem(d, text_of(value)); !problem.empty()) {
      out.push_back(at(rf::kTolerances, key) + ": " + problem);
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

// A module or successor-format record's session (§11, "session settings"): the three keys, and `config` when
// a config entry was set; a level of kOptimizationLevels, 1 to kMaxIntraOpThreads intra-op threads, one
// inter-op thread, config entries KEY: VALUE of strings.
void check_settings(const JsonView& session, Problems& out) {
  namespace key = rf::session_key;
  const std::string where = at(rf::kRuntime, rf::runtime_key::kSession);
  if (!is_object_or_report(session, where, out)) return;
  for (const auto& member : session.members()) {
    if (std::find(key::kKeys.begin(), key::kKeys.end(), member.key) == key::kKeys.end() && member.key != key::kConfig) {
      out.push_back(where + ": unknown key " + quote(member.key));
    }
  }
  const std::optional<std::int64_t> intra = session[key::kIntraOpThreads].int64();
  if (!intra || *intra < 1 || *intra > key::kMaxIntraOpThreads) {
    out.push_back(where + "." + key::kIntraOpThreads + ": must be a whole number from 1 to " +
                  std::to_string(key::kMaxIntraOpThreads) + ", not " + text_of(session[key::kIntraOpThreads]));
  }
  if (session[key::kInterOpThreads].int64() != key::kRequiredInterOpThreads) {
    out.push_back(where + "." + key::kInterOpThreads + ": must be 1 (the parity stage runs one case at a time), not " +
                  text_of(session[key::kInterOpThreads]));
  }
  const JsonView level = session[key::kOptimizationLevel];
  if (std::none_of(key::kOptimizationLevels.begin(), key::kOptimizationLevels.end(),
                   [&](const char* name) { return level.is_text(name); })) {
    out.push_back(where + "." + key::kOptimizationLevel + ": must be one of ORT_DISABLE_ALL, ORT_ENABLE_BASIC, "
                  "ORT_ENABLE_EXTENDED, ORT_ENABLE_LAYOUT, ORT_ENABLE_ALL, not " + text_of(level));
  }
  if (const JsonView config = session[key::kConfig]; config.exists()) {
    bool strings = config.is_object() && !config.empty();
    for (const auto& member : config.members()) strings = strings && !member.key.empty() && member.value.is_string();
    if (!strings) out.push_back(where + "." + key::kConfig + ": must be a non-empty object of KEY: VALUE strings");
  }
}

// A module or successor-format record's runtime.provider_options (§11, "session settings"): a non-empty object
// of KEY: VALUE strings, never beside the CPU provider (it takes none).
void check_provider_options(const JsonView& runtime, Problems& out) {
  namespace key = rf::runtime_key;
  const JsonView options = runtime[key::kProviderOptions];
  const std::string where = at(rf::kRuntime, key::kProviderOptions);
  bool strings = options.is_object() && !options.empty();
  for (const auto& member : options.members()) strings = strings && !member.key.empty() && member.value.is_string();
  if (!strings) out.push_back(where + ": must be a non-empty object of KEY: VALUE strings");
  if (runtime[key::kProvider].is_text(key::kRequiredProvider)) {
    out.push_back(where + ": " + key::kRequiredProvider + " takes no provider options");
  }
}

}  // namespace validation

namespace {

// Every rule; `strict` are the problems of check_strict_json (none for a tape: its writer checked).
std::vector<std::string> problems_of(const JsonView& record, const validation::Problems& strict) {
  using namespace validation;
  if (!record.is_object()) return {"record: must be an object, not " + json_type_name(record)};
  Problems out;
  const KindRules kind = kind_rules(record);
  exact_keys(record, "record", kind.keys, out);
  out.insert(out.end(), strict.begin(), strict.end());
  check_sections(record, kind, out);
  if (!kind.tensor_cases) check_v1_failures(record, out);
  const Stages view = check_stages(record, out);
  check_summary(record, view, out);
  std::vector<NamedFile> named;  // the files the cases name, when they name stored tensors
  if (kind.tensor_cases) {
    named = check_module_record(record, view, out);
  } else {
    check_cases(record, view, out);
  }
  check_triangulation(record, out);
  check_model_state(record, view, out);
  const std::vector<ListedFile> listed = check_artifacts(record, view, kind.tensor_cases, out);
  if (kind.tensor_cases) check_stored_files(named, listed, view, out);
  check_opset(record, view, out);
  check_tolerances(record, out);
  std::vector<std::string> settings = kind.tensor_cases ? std::vector<std::string>{} : settings_problems(record);
  if (out.empty() && settings.empty()) return out;  // a valid record: nothing to make unique
  Problems unique;
  add_unique(unique, out);
  add_unique(unique, settings);
  return unique;
}

// The message validate_record throws.
[[noreturn]] void refuse(const JsonView& profile, const std::vector<std::string>& problems) {
  std::string message = "invalid record";
  if (profile.is_string()) message += " for profile " + validation::quote(profile.string());
  message += " (" + std::to_string(problems.size()) + (problems.size() == 1 ? " problem" : " problems") + "):";
  for (const auto& p : problems) message += "\n  - " + p;
  throw ConformanceError(message);
}

}  // namespace

std::vector<std::string> record_problems(const JsonView& record) {
  if (record[rf::kFormat].is_text(kModelFormat) && record[rf::kModel][rf::model_key::kKind].is_text(rf::kKindBuiltIn)) {
    return record_problems(record.to_json());  // §11's kind "built-in": the rules of its v1 view
  }
  return problems_of(record, {});
}

std::vector<std::string> record_problems(const json& record) {
  if (!record.is_object()) return {"record: must be an object, not " + json_type_name(record)};
  if (is_built_in_model_record(record)) return validation::built_in_record_problems(record);
  validation::Problems strict;
  validation::check_strict_json(record, strict);
  const JsonTape tape = JsonTape::from_json(record);
  return problems_of(JsonView(tape), strict);
}

void validate_record(const JsonView& record) {
  const std::vector<std::string> problems = record_problems(record);
  if (!problems.empty()) refuse(record[rf::kProfile], problems);
}

void validate_record(const json& record) {
  const std::vector<std::string> problems = record_problems(record);
  if (problems.empty()) return;
  const auto profile = record.is_object() ? record.find(std::string_view(rf::kProfile)) : record.end();
  const JsonTape name = JsonTape::from_json(profile != record.end() ? *profile : json());
  refuse(JsonView(name), problems);
}

}  // namespace nnx
