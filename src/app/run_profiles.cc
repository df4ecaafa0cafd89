#include "app/run_profiles.h"

#include <stdexcept>
#include <system_error>

#include "app/run_profile.h"
#include "artifacts/layout.h"
#include "base/failure.h"

namespace nnx {

std::vector<Profile> tested_profiles_named(const std::vector<std::string>& names) {
  if (names.empty()) return tested_profiles();
  std::vector<Profile> chosen;
  for (const auto& name : names) {
    auto p = tested_profile(name);
    if (!p) {
      std::string known;
      for (const auto& t : tested_profiles()) known += (known.empty() ? "" : ", ") + t.name;
      throw UsageError("unknown profile \"" + name + "\" (tested profiles: " + known + ")");
    }
    bool seen = false;
    for (const auto& c : chosen) seen = seen || c.name == name;
    if (!seen) chosen.push_back(*p);
  }
  return chosen;
}

std::vector<json> run_profiles(const std::vector<Profile>& profiles, const std::filesystem::path& root,
                               const RunOptions& options, bool force) {
  std::vector<Profile> chosen;
  for (const auto& p : profiles) {
    require_valid(p);
    bool seen = false;
    for (const auto& c : chosen) {
      if (c.name != p.name) continue;
      if (c.canonical_settings_text() != p.canonical_settings_text()) {
        throw ConformanceError("two profiles named \"" + p.name + "\" with different settings would share " +
                               profile_folder(root, p.name).string());
      }
      seen = true;
    }
    if (!seen) chosen.push_back(p);
  }
  for (const auto& p : chosen) {
    if (force) {
      clear_profile_folder(root, p.name);
    } else {
      require_free_profile_folder(root, p.name);
    }
  }
  std::vector<json> records;
  WarmWorker warm;  // one worker serves the profiles in turn while it runs; stopped at the end or on unwind
  for (const auto& p : chosen) records.push_back(run_profile(p, root, options, warm));
  return records;
}

}  // namespace nnx
