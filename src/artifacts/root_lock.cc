#include "artifacts/root_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "base/error.h"
#include "base/interrupt.h"

namespace nnx {
namespace {

// Who holds a flock on the file `fd` refers to, from /proc/locks ("1: FLOCK ADVISORY WRITE <pid>
// <major>:<minor>:<inode> 0 EOF"): its pid and whether it holds it exclusively (WRITE), an exclusive holder
// first; an empty pid when it cannot be told.
struct Holder {
  std::string pid;
  bool exclusive = false;
};

Holder flock_holder(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {};
  std::ifstream locks("/proc/locks");
  std::string line;
  Holder found;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, file;
    if (!(fields >> number >> kind >> mode >> access >> pid >> file)) continue;
    // The device's major and minor may be printed with leading zeros (08:01): compare them as numbers.
    unsigned major_seen = 0, minor_seen = 0;
    unsigned long inode_seen = 0;
    if (kind == "FLOCK" && std::sscanf(file.c_str(), "%x:%x:%lu", &major_seen, &minor_seen, &inode_seen) == 3 &&
        major_seen == major(st.st_dev) && minor_seen == minor(st.st_dev) && inode_seen == st.st_ino &&
        pid != std::to_string(::getpid()) && (found.pid.empty() || (access == "WRITE" && !found.exclusive))) {
      found = {pid, access == "WRITE"};
    }
  }
  return found;
}

// flock(fd, how | LOCK_NB), retried after EINTR unless a signal of the run's arrived; 0 or the errno.
int try_flock(int fd, int how) {
  int rc;
  do {
    rc = ::flock(fd, how | LOCK_NB);
  } while (rc != 0 && errno == EINTR && interrupt_signal() == 0);
  return rc == 0 ? 0 : errno;
}

// The refusal when `folder` (the root itself, or one of its ancestors) is held by another process.
[[noreturn]] void refuse_held(int fd, int err, const std::filesystem::path& folder, const std::filesystem::path& root,
                              bool is_root) {
  const Holder holder = err == EWOULDBLOCK ? flock_holder(fd) : Holder{};
  ::close(fd);
  throw_if_interrupted();
  if (err != EWOULDBLOCK) throw std::runtime_error("cannot lock " + folder.string() + ": " + errno_text(err));
  const std::string pid = holder.pid.empty() ? "" : " (pid " + holder.pid + ")";
  const std::string nested = " (roots that contain one another are locked against each other)";
  const std::string way_out = "; wait for it to finish or choose another artifacts folder";
  if (!is_root) {
    throw RootInUse("another nnx-conformance run holds " + folder.string() + pid + ", which contains " +
                    root.string() + nested + way_out);
  }
  if (holder.pid.empty()) {
    throw RootInUse("another nnx-conformance run holds " + root.string() + " or a folder inside it" + nested + way_out);
  }
  if (holder.exclusive) throw RootInUse("another nnx-conformance run holds " + root.string() + pid + way_out);
  throw RootInUse("another nnx-conformance run holds a folder inside " + root.string() + pid + nested + way_out);
}

}  // namespace

ArtifactRootLock::ArtifactRootLock(const std::filesystem::path& root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) throw std::runtime_error("cannot create the artifacts folder " + root.string() + ": " + ec.message());
  const std::filesystem::path resolved = std::filesystem::canonical(root, ec);
  if (ec) throw std::runtime_error("cannot resolve the artifacts folder " + root.string() + ": " + ec.message());
  std::vector<std::filesystem::path> above;
  for (auto folder = resolved.parent_path(); folder != resolved; folder = folder.parent_path()) {
    above.insert(above.begin(), folder);  // from / down
    if (folder == folder.parent_path()) break;
  }
  try {
    for (const auto& folder : above) {
      const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) continue;  // unreadable: no run of ours can hold it (it opens its root to lock it)
      if (const int err = try_flock(fd, LOCK_SH)) refuse_held(fd, err, folder, root, false);
      fds_.push_back(fd);
    }
    const int fd = ::open(resolved.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      throw std::runtime_error("cannot open the artifacts folder " + root.string() + ": " + errno_text(errno));
    }
    if (const int err = try_flock(fd, LOCK_EX)) refuse_held(fd, err, resolved, root, true);
    fds_.push_back(fd);
  } catch (...) {
    for (const int fd : fds_) ::close(fd);
    throw;
  }
}

ArtifactRootLock::~ArtifactRootLock() {
  for (const int fd : fds_) ::close(fd);  // releases the flocks
}

}  // namespace nnx
