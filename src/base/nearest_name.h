// The one "did you mean" rule (doc/cli.md; doc/profile-files.md, "Errors"): the known name nearest to a
// mistyped one, used for the command line's flags and commands (cli/help_text.h) and for a profile's keys,
// dtypes and factory names (base/json_fields.h, profile/).
//
// A known name is close enough to be what was meant when it is at most two edits away (a letter added,
// dropped, changed, or two neighbours swapped: the optimal string alignment distance) and the edits are fewer
// than half of the typed word's letters; of those, the nearest (the first of equals, in `known`'s order).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nnx {

std::optional<std::string> nearest_name(std::string_view typed, const std::vector<std::string>& known);

// "; did you mean \"<name>\"?" for the nearest name, or "" when none is close enough.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known);

}  // namespace nnx
