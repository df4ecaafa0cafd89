#include "profile/profile_file.h"

#include <string>
#include <unordered_map>

#include "base/error.h"
#include "base/file_bytes.h"
#include "base/json_strict.h"
#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "base/nearest_name.h"
#include "base/module_record_vocabulary.h"
#include "base/record_vocabulary.h"
#include "profile/module_factory.h"
#include "profile/onnx_file_profile.h"

namespace nnx {
namespace {

// profile_from_json names problems "profile.<field>: ..." or "profile: ..."; the file names the entry.
std::string at_index(const std::string& problem, const std::string& where) {
  const std::string prefix = "profile";
  if (problem.rfind(prefix, 0) == 0 && problem.size() > prefix.size() &&
      (problem[prefix.size()] == '.' || problem[prefix.size()] == ':')) {
    return where + problem.substr(prefix.size());
  }
  return where + ": " + problem;
}

// The entry with every path it names resolved against the profile file's folder (the one path rule,
// module_factory.h): a module's relative FILE.py factory, an imported file's relative onnx and data.
nlohmann::json with_paths_resolved(const nlohmann::json& entry, const std::optional<std::filesystem::path>& folder) {
  if (!folder || !entry.is_object()) return entry;
  nlohmann::json out = entry;
  if (const auto factory = entry.find(rf::kModule); factory != entry.end() && factory->is_string()) {
    out[rf::kModule] = factory_resolved_against(factory->get<std::string>(), *folder);
  }
  for (const char* key : {rf::model_key::kOnnx, rf::model_key::kData}) {
    const auto path = entry.find(key);
    if (path == entry.end() || !path->is_string() || path->get<std::string>().empty()) continue;
    const std::filesystem::path given(path->get<std::string>());
    if (given.is_relative()) out[key] = (std::filesystem::absolute(*folder) / given).lexically_normal().string();
  }
  return out;
}

// One entry read with every check a profile file's entry gets; its problems ("profile.<field>: ...") appended.
Profile entry_from_json(const nlohmann::json& entry, std::vector<std::string>& problems) {
  if (entry.is_object() && !entry.contains(rf::profile_key::kExporter) && model_kind_facts(profile_kind_of_json(entry)).exported) {
    problems.push_back("profile.exporter: missing");
  }
  Profile profile = profile_from_json(entry, problems);
  if (problems.empty()) problems = profile.problems();
  return profile;
}

// "profile.name: missing" -> "--name: missing"; a top-level key's nearest key is named as its flag too
// ("--dim: unknown key; did you mean --dims?"), else one of the command's own flags near it ("--outptu: unknown
// key; did you mean --output?"). A problem of the whole object stays as it is.
std::string as_flag_problem(const std::string& problem, const std::vector<std::string>& command_flags) {
  const std::string prefix = "profile.";
  if (problem.rfind(prefix, 0) != 0) return problem;
  std::string out = "--" + problem.substr(prefix.size());
  const std::string key_end = out.substr(0, out.find(':'));
  const std::string meant = "; did you mean \"";
  const std::string unknown = ": unknown key";
  if (out.size() == key_end.size() + unknown.size() && out.compare(key_end.size(), unknown.size(), unknown) == 0) {
    if (const auto flag = nearest_name(key_end, command_flags)) return out + "; did you mean " + *flag + "?";
  }
  if (const auto at = out.find(meant); at != std::string::npos && key_end.find('.') == std::string::npos) {
    const auto close = out.find('"', at + meant.size());
    if (close != std::string::npos) {
      out = out.substr(0, at) + "; did you mean --" + out.substr(at + meant.size(), close - at - meant.size()) +
            out.substr(close + 1);
    }
  }
  return out;
}

}  // namespace

Profile profile_from_flags(const nlohmann::json& object, const std::filesystem::path& folder,
                           const std::vector<std::string>& command_flags) {
  std::vector<std::string> problems;
  Profile profile = entry_from_json(with_paths_resolved(object, folder), problems);
  if (problems.empty()) return profile;
  std::string message = "bad profile flags:";
  for (const auto& problem : problems) message += "\n  - " + as_flag_problem(problem, command_flags);
  throw UsageError(message);
}

std::vector<Profile> profiles_from_json(const nlohmann::json& list,
                                        const std::optional<std::filesystem::path>& factory_folder) {
  if (!list.is_array()) {
    throw UsageError("a profile file must hold a JSON list of profile objects, not " + json_type_name(list));
  }
  if (list.empty()) throw UsageError("the profile file lists no profile");
  std::vector<std::string> problems;
  std::vector<Profile> profiles;
  std::unordered_map<std::string, std::size_t> first_of_name;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "profiles[" + std::to_string(i) + "]";
    std::vector<std::string> entry_problems;
    Profile profile = entry_from_json(with_paths_resolved(list[i], factory_folder), entry_problems);
    // The first entry of each name, found in one lookup: a file of n entries is checked in linear time.
    const auto [first, added] = first_of_name.try_emplace(profile.name, i);
    if (entry_problems.empty()) {
      if (!added) {
        entry_problems.push_back("profile.name: \"" + profile.name + "\" is already profiles[" +
                                 std::to_string(first->second) + "]");
      }
    }
    for (const auto& problem : entry_problems) problems.push_back(at_index(problem, where));
    profiles.push_back(std::move(profile));
  }
  if (!problems.empty()) {
    std::string message = "bad profile file:";
    for (const auto& problem : problems) message += "\n  - " + problem;
    throw UsageError(message);
  }
  return profiles;
}

std::vector<Profile> profiles_from_file(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_file_bytes(file, kMaxJsonTextBytes, "the JSON limit", ErrorKind::usage);
  } catch (const Error& e) {
    throw UsageError(std::string("cannot read the profile file: ") + e.what());
  }
  nlohmann::json list;
  try {
    list = parse_strict_json(text);  // strict, as a record: a duplicate key, NaN or 1e400 is refused
  } catch (const JsonError& e) {
    throw UsageError("the profile file " + file.string() + " is not JSON: " + e.what());
  }
  try {
    return profiles_from_json(list, std::filesystem::absolute(file).parent_path());
  } catch (const Error& e) {
    throw UsageError(file.string() + ": " + e.what());
  }
}

}  // namespace nnx
