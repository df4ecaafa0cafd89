// The rules module profiles and module records share (module_spec_rules.h; doc/record-format.md §10).
#include "profile/module_spec_rules.h"

#include <algorithm>
#include <set>

#include "artifacts/layout.h"

namespace nnx {

std::string outputs_problem(const std::vector<std::string>& names) {
  if (names.empty()) return "an empty list names no output (leave outputs out, or null, to keep the module's own)";
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (name.empty()) return "an output's name is empty";
    if (!seen.insert(name).second) return "the name \"" + name + "\" is given twice (each output has its own)";
  }
  return "";
}

std::optional<std::string> CaseNames::add(const std::string& name, const std::string& where) {
  const auto [it, fresh] = first_.try_emplace(name, where);
  if (fresh) return std::nullopt;
  return it->second;
}

std::string hides_problem(const std::string& dtype, const std::vector<std::string>& hides,
                          const std::optional<std::vector<std::string>>& outputs) {
  static const std::set<std::string> kMaskDtypes = {"bool", "int64", "int32", "int8", "uint8"};
  if (!kMaskDtypes.count(dtype)) return "only a bool or integer input hides positions (its zeros), not a " + dtype + " one";
  if (!outputs) return "name the outputs (`outputs`) to hide positions of one";
  if (hides.empty()) return "an empty list hides nothing (leave it out)";
  std::set<std::string> seen;
  for (const auto& name : hides) {
    if (std::find(outputs->begin(), outputs->end(), name) == outputs->end()) {
      return "\"" + name + "\" is not one of the outputs";
    }
    if (!seen.insert(name).second) return "\"" + name + "\" is named twice";
  }
  return "";
}

std::string refusal_name_problem(const std::string& name) {
  if (!is_plain_name(name)) return "is not a plain name ([A-Za-z0-9._-]), as a refusal case's folder must be";
  if (name.size() > kMaxFolderNameBytes) {
    return "is " + std::to_string(name.size()) + " bytes long; a refusal case's folder name may have at most " +
           std::to_string(kMaxFolderNameBytes) + " (a shorter input name)";
  }
  return "";
}

}  // namespace nnx
