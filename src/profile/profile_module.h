// The module profile's side of Profile (profile.h; doc/record-format.md §10): what each Profile member does
// for a profile with a `module`, kept beside the feed-forward rules so that profile.cc only dispatches.
// A module profile file object has the keys name, exporter, module, inputs, dims and, optionally, outputs,
// data (a folder of given inputs, read once the spec is sound: given_inputs.h), opset_version (default 18),
// rtol and atol (default the tested profiles'), runtime and provider; `opset` and `tolerances {rtol, atol}`
// are read as their alias (profile_spelling.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/profile.h"

namespace nnx {

inline constexpr std::int64_t kModuleDefaultOpset = 18;

nlohmann::json module_exporter_options(const Profile& profile);
std::vector<InputCase> module_input_cases(const Profile& profile);
nlohmann::json module_settings(const Profile& profile);
nlohmann::json module_profile_json(const Profile& profile);
// Problems of a module profile beyond its name, exporter and tolerances (which profile.cc checks).
std::vector<std::string> module_profile_problems(const Profile& profile);
Profile module_profile_from_json(const nlohmann::json& value, std::vector<std::string>& problems);

}  // namespace nnx
