// One spelling of a profile object's opset and tolerances for every kind (doc/profile-files.md, "One
// spelling for every kind"): `opset_version`, `rtol` and `atol`, the fields of the published original's
// Profile (doc/record-format.md §3) and the exporter option every record states (`opset_version`, the
// tested profiles' included). A module profile's first spelling, `opset` and `tolerances {rtol, atol}`, is
// read as their alias in either kind; a setting given in both spellings is a problem naming both keys. The
// defaults stay each kind's: `profile` keeps what it holds for a setting not given. profile_from_json and
// module_profile_from_json call it; Profile::to_json writes the canonical spelling for both kinds.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "profile/profile.h"

namespace nnx {

// Reads the opset and the tolerances of profile object `object` into `profile`, through `reader` (so the
// keys it reads are not unknown ones), appending "profile...: ..." problems.
void read_opset_and_tolerances(const nlohmann::json& object, FieldReader& reader, Profile& profile,
                               std::vector<std::string>& problems);

}  // namespace nnx
