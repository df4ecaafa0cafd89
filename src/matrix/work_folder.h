// The matrix's private folder under the system's temporary folder (doc/runtime-matrix.md, "Cells and
// shards"), and how none is left behind when the matrix is killed.
//
// `WorkFolder` makes `<TMPDIR>/nnx-matrix-XXXXXX` (mkdtemp) holding the file `owner` (the matrix's pid, in
// decimal) and removes the folder with everything in it when it goes. A matrix killed by SIGKILL runs no
// destructor; then two things remove it: each cell child, when its lifeline ends (base/child_process.h),
// removes the work folder it runs in (`remove_work_folder`: only a folder holding `owner`), and every matrix,
// before it makes its own, sweeps the work folders whose owner is no longer alive
// (`sweep_orphaned_work_folders`; a folder whose owner cannot be read, or of another user, is left alone).
#pragma once

#include <filesystem>

namespace nnx::matrix {

inline constexpr const char* kWorkFolderPrefix = "nnx-matrix-";
inline constexpr const char* kWorkFolderOwnerFile = "owner";

class WorkFolder {
 public:
  WorkFolder();
  ~WorkFolder();
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Removes `folder` and everything in it when it is a matrix's work folder (it holds `owner`).
void remove_work_folder(const std::filesystem::path& folder);

// Removes every work folder under the temporary folder whose owner process has ended.
void sweep_orphaned_work_folders();

}  // namespace nnx::matrix
