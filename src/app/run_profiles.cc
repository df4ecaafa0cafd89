#include "app/run_profiles.h"

#include <stdexcept>
#include <system_error>

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

void check_artifact_root(const std::filesystem::path& root, bool force) {
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(root, ec);
  if (!ec && st.type() == std::filesystem::file_type::symlink && force) {
    throw UsageError("--force refuses a symlinked artifacts folder " + root.string());
  }
  if (std::filesystem::exists(root, ec) && !std::filesystem::is_directory(root, ec)) {
    throw UsageError("--artifacts " + root.string() + " exists and is not a folder");
  }
}

void clear_profile_folder(const std::filesystem::path& root, const std::string& name) {
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(root, ec);
  if (!ec && st.type() == std::filesystem::file_type::symlink) {
    throw UsageError("--force refuses a symlinked artifacts folder " + root.string());
  }
  const auto folder = root / name;
  const auto fst = std::filesystem::symlink_status(folder, ec);
  if (ec || fst.type() == std::filesystem::file_type::not_found) return;
  if (fst.type() == std::filesystem::file_type::symlink) {
    throw UsageError("--force refuses a symlinked profile folder " + folder.string());
  }
  std::filesystem::remove_all(folder, ec);
  if (ec) throw std::runtime_error("cannot clear " + folder.string() + ": " + ec.message());
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
                               (root / p.name).string());
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
  for (const auto& p : chosen) records.push_back(run_profile(p, root, options));
  return records;
}

}  // namespace nnx
