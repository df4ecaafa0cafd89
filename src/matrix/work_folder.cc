// WorkFolder and the removal of orphaned ones; contract in work_folder.h.
#include "matrix/work_folder.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "base/atomic_file.h"
#include "base/error.h"

namespace nnx::matrix {
namespace {

// Whether the process that made `folder` has ended (false when that cannot be told).
bool owner_has_ended(const std::filesystem::path& folder) {
  std::ifstream in(folder / kWorkFolderOwnerFile);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

WorkFolder::WorkFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / (std::string(kWorkFolderPrefix) + "XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) throw WriteError("cannot make a temporary folder for the matrix's cells");
  path_ = pattern;
  write_file_atomically(path_ / kWorkFolderOwnerFile, std::to_string(::getpid()) + "\n");
}

WorkFolder::~WorkFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void remove_work_folder(const std::filesystem::path& folder) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(folder / kWorkFolderOwnerFile, ec)) return;
  std::filesystem::remove_all(folder, ec);
}

void sweep_orphaned_work_folders() {
  std::error_code ec;
  const std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
  if (ec) return;
  for (const auto& entry : std::filesystem::directory_iterator(temp, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kWorkFolderPrefix) || !entry.is_directory(ec) || entry.is_symlink(ec)) continue;
    if (owner_has_ended(entry.path())) remove_work_folder(entry.path());
  }
}

}  // namespace nnx::matrix
