// The one spelling of a profile's opset and tolerances, its alias read (profile_spelling.h).
#include "profile/profile_spelling.h"

#include "base/record_vocabulary.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace key = rf::profile_key;
namespace tolerance = rf::tolerance_key;

std::string both_given(const std::string& canonical, const std::string& alias) {
  return "profile: " + canonical + " and " + alias + " are both given: " + alias + " is the other spelling of " +
         canonical + ", give one of them (" + canonical + " is the documented one)";
}

void read_alias_tolerances(const json& tolerances, Profile& profile, std::vector<std::string>& problems) {
  FieldReader reader(tolerances, std::string("profile.") + key::kTolerances, problems);
  if (tolerances.is_object() && tolerances.contains(tolerance::kRtol)) reader.number(tolerance::kRtol, profile.rtol);
  if (tolerances.is_object() && tolerances.contains(tolerance::kAtol)) reader.number(tolerance::kAtol, profile.atol);
  reader.finish();
}

}  // namespace

void read_opset_and_tolerances(const json& object, FieldReader& reader, Profile& profile,
                               std::vector<std::string>& problems) {
  if (!object.is_object()) return;
  reader.may_hold({key::kOpsetVersion, key::kOpset, key::kRtol, key::kAtol, key::kTolerances});
  const bool opset_version = object.contains(key::kOpsetVersion), opset = object.contains(key::kOpset);
  if (opset_version && opset) {
    problems.push_back(both_given(key::kOpsetVersion, key::kOpset));
    reader.allow_extra(key::kOpset);
    reader.allow_extra(key::kOpsetVersion);
  } else if (opset_version || opset) {
    reader.integer(opset_version ? key::kOpsetVersion : key::kOpset, profile.opset_version);
  }
  const bool flat = object.contains(key::kRtol) || object.contains(key::kAtol);
  const auto tolerances = object.find(key::kTolerances);
  if (flat && tolerances != object.end()) {
    problems.push_back(both_given(std::string(key::kRtol) + "/" + key::kAtol, key::kTolerances));
    for (const char* k : {key::kRtol, key::kAtol, key::kTolerances}) reader.allow_extra(k);
    return;
  }
  if (object.contains(key::kRtol)) reader.number(key::kRtol, profile.rtol);
  if (object.contains(key::kAtol)) reader.number(key::kAtol, profile.atol);
  if (tolerances != object.end()) {
    reader.allow_extra(key::kTolerances);
    read_alias_tolerances(*tolerances, profile, problems);
  }
}

}  // namespace nnx
