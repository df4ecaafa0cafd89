#include "artifacts/layout.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "base/error.h"

namespace nnx {
namespace fs = std::filesystem;
namespace {

// Clearing profile folders through a symlinked root would act on what it points to.
void refuse_symlinked_root(const fs::path& root) {
  std::error_code ec;
  if (fs::symlink_status(root, ec).type() == fs::file_type::symlink && !ec) {
    throw UsageError("refusing to clear profile folders in the symlinked artifacts folder " + root.string());
  }
}

}  // namespace

bool is_plain_name(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

fs::path profile_folder(const fs::path& root, const std::string& name) { return root / name; }

fs::path default_artifacts_root(const fs::path& report_path) {
  return report_path.parent_path() / (report_path.stem().string() + "-artifacts");
}

void check_artifact_root(const fs::path& root, bool clearing) {
  if (clearing) refuse_symlinked_root(root);
  std::error_code ec;
  if (fs::exists(root, ec) && !fs::is_directory(root, ec)) {
    throw UsageError("the artifacts folder " + root.string() + " exists and is not a folder");
  }
}

void require_free_profile_folder(const fs::path& root, const std::string& name) {
  std::error_code ec;
  const auto folder = profile_folder(root, name);
  const auto st = fs::symlink_status(folder, ec);
  if (ec || st.type() == fs::file_type::not_found) return;
  if (st.type() != fs::file_type::directory) {
    throw FolderInUse("profile folder " + folder.string() + " exists and is not a folder");
  }
  if (!fs::is_empty(folder, ec) || ec) {
    throw FolderInUse("profile folder " + folder.string() + " already holds files");
  }
}

void clear_profile_folder(const fs::path& root, const std::string& name) {
  refuse_symlinked_root(root);
  std::error_code ec;
  const auto folder = profile_folder(root, name);
  const auto fst = fs::symlink_status(folder, ec);
  if (ec || fst.type() == fs::file_type::not_found) return;
  if (fst.type() == fs::file_type::symlink) {
    throw UsageError("refusing to clear the symlinked profile folder " + folder.string());
  }
  fs::remove_all(folder, ec);
  if (ec) throw std::runtime_error("cannot clear " + folder.string() + ": " + ec.message());
}

}  // namespace nnx
