// The settings rule's common case, decided in place (doc/record-format.md §3, §6 settings rule; the rule
// itself: record/profile_rebuild.h settings_problems).
//
// `tested_settings_match` answers whether a record names a tested profile and states exactly that profile's
// settings: same_canonical(record_settings(record), the profile's settings), read where the record lies on
// its tape. No settings object is built: each tested profile's settings are recorded once per process on a
// tape, its input cases' settings found once, and compared view by view. False says only "not this case":
// settings_problems then makes the full comparison, which names every difference.
#pragma once

#include <array>

#include "base/json_view.h"
#include "record/record_format.h"

namespace nnx {

// The case fields the settings state (§3 "input cases").
inline constexpr std::array<const char*, 4> kCaseSettings = {rf::case_key::kName, rf::case_key::kShape,
                                                             rf::case_key::kSeed, rf::case_key::kExpect};

bool tested_settings_match(const JsonView& record);

}  // namespace nnx
