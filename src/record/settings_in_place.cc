// The settings rule's common case, decided in place; contract in settings_in_place.h.
#include "record/settings_in_place.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/json_python.h"
#include "profile/profile.h"
#include "record/record_format.h"

namespace nnx {
namespace {

using nlohmann::json;

// The seven parts of a profile's settings (profile.h Profile::settings), in one pass.
constexpr std::array<const char*, 7> kSettingsParts = {
    rf::settings_key::kTolerances,      rf::settings_key::kInputCases,  rf::settings_key::kDtype,
    rf::settings_key::kRuntime,         rf::settings_key::kExporterOptions, rf::settings_key::kModelConfig,
    rf::settings_key::kArtifactDirectory};

// A tested profile's settings recorded once on a tape (constant: built once per process), with its seven
// parts and each of its input cases' four settings found once: what settings_match reads against a record
// in place.
struct TestedSettingsOnTape {
  explicit TestedSettingsOnTape(const json& settings)
      : tape(JsonTape::from_json(settings)), parts(JsonView(tape), kSettingsParts) {
    const JsonView cases = parts.at(1);
    for (const JsonView c : cases.items()) {
      if (c.is_object() && c.size() == kCaseSettings.size()) wanted_cases.emplace_back(c, kCaseSettings);
    }
    readable = parts.object().is_object() && parts.object().size() == kSettingsParts.size() &&
               parts.known() == kSettingsParts.size() && cases.is_array() && wanted_cases.size() == cases.size();
  }
  const JsonTape tape;
  const KnownMembers<kSettingsParts.size()> parts;  // views into `tape`, which never moves
  std::vector<KnownMembers<kCaseSettings.size()>> wanted_cases;
  bool readable = false;  // exactly the seven parts, every case an object of exactly the four settings
};

const TestedSettingsOnTape* tested_settings_tape(std::string_view name) {
  static const std::vector<std::pair<std::string, std::unique_ptr<TestedSettingsOnTape>>> tapes = [] {
    std::vector<std::pair<std::string, std::unique_ptr<TestedSettingsOnTape>>> out;
    for (const auto& p : tested_profiles()) out.emplace_back(p.name, std::make_unique<TestedSettingsOnTape>(p.settings()));
    return out;
  }();
  for (const auto& [tested, settings] : tapes) {
    if (tested == name) return settings.get();
  }
  return nullptr;
}

// same_canonical(as_float(value), expected) without building the float.
bool same_as_float(const JsonView& value, const JsonView& expected) {
  double d = 0.0;
  if (!json_number(value, d)) return same_canonical(value, expected);
  return expected.is_number_float() && same_float(d, expected.number());
}

// same_canonical(record_settings(record)[model config], expected), read in place.
bool same_config(const JsonView& config, const JsonView& expected) {
  namespace cfg = rf::config_key;
  if (!config.is_object()) return same_canonical(config, expected);
  if (!expected.is_object() || expected.size() != config.size() - (config.contains(cfg::kWeightsSha256) ? 1 : 0)) {
    return false;
  }
  for (const auto& [key, value] : config.members()) {
    if (key == cfg::kWeightsSha256) continue;
    const JsonView want = expected[key];
    if (!want.exists()) return false;
    if (key == cfg::kDropout) {
      if (!same_as_float(value, want)) return false;
    } else if (key == cfg::kWeights && value.is_object() && value.contains(cfg::kStd)) {
      if (!want.is_object() || want.size() != value.size()) return false;
      for (const auto& [name, weight] : value.members()) {
        const JsonView want_w = want[name];
        if (!want_w.exists()) return false;
        if (!(name == cfg::kStd ? same_as_float(weight, want_w) : same_canonical(weight, want_w))) return false;
      }
    } else if (!same_canonical(value, want)) {
      return false;
    }
  }
  return true;
}

// same_canonical(record_settings(record), expected), decided in place (no settings object is built): the
// common case of a record whose settings are right, against a tested profile's settings on a tape. A false
// answer is then explained by the full comparison.
bool settings_match(const JsonView& record, const TestedSettingsOnTape& tested) {
  if (!tested.readable) return false;
  const auto& part = tested.parts;
  const JsonView &tolerances = part.at(0), &cases = part.at(1), &dtype = part.at(2), &runtime = part.at(3),
                 &options = part.at(4), &config = part.at(5), &directory = part.at(6);
  const JsonView tol = record[rf::kTolerances];
  if (!tolerances.is_object() || tolerances.size() != 2) return false;
  for (const char* k : {rf::tolerance_key::kRtol, rf::tolerance_key::kAtol}) {
    const JsonView want = tolerances[k];
    if (!want.exists() || !same_as_float(tol[k], want)) return false;
  }
  const JsonView raw_cases = record[rf::kInputCases];
  if (raw_cases.is_array()) {
    if (tested.wanted_cases.size() != raw_cases.size()) return false;
    std::size_t i = 0;
    for (const JsonView raw : raw_cases.items()) {
      const auto& wanted = tested.wanted_cases[i++];
      const KnownMembers stated(raw, kCaseSettings);  // one pass over the case's ten members
      for (std::size_t f = 0; f < kCaseSettings.size(); ++f) {
        if (!wanted.at(f).exists() || !same_canonical(stated.at(f), wanted.at(f))) return false;
      }
    }
  } else if (!same_canonical(raw_cases, cases)) {
    return false;
  }
  if (!same_canonical(record[rf::kDtype], dtype)) return false;
  const JsonView rt = record[rf::kRuntime];
  if (!runtime.is_array() || runtime.size() != 2) return false;
  auto runtime_part = runtime.items().begin();
  const JsonView name = *runtime_part;
  ++runtime_part;
  if (!same_canonical(rt[rf::runtime_key::kName], name) ||
      !same_canonical(rt[rf::runtime_key::kProvider], *runtime_part)) {
    return false;
  }
  if (!same_canonical(record[rf::kExporter][rf::exporter_key::kOptions], options)) return false;
  if (!same_config(record[rf::kConfig], config)) return false;
  return same_canonical(record[rf::kArtifacts][rf::artifacts_key::kDirectory], directory);
}

}  // namespace

bool tested_settings_match(const JsonView& record) {
  const JsonView name = record[rf::kProfile];
  const TestedSettingsOnTape* tested = name.is_string() ? tested_settings_tape(name.string()) : nullptr;
  return tested != nullptr && settings_match(record, *tested);
}

}  // namespace nnx
