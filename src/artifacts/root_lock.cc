#include "artifacts/root_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "base/interrupt.h"

namespace nnx {
namespace {

std::string os_error(int err) { return std::error_code(err, std::generic_category()).message(); }

// The pid holding a flock on the file `fd` refers to, from /proc/locks ("1: FLOCK ADVISORY WRITE <pid>
// <major>:<minor>:<inode> 0 EOF"); empty when it cannot be told.
std::string flock_holder(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "";
  std::ostringstream id;
  id << std::hex << major(st.st_dev) << ":" << minor(st.st_dev) << ":" << std::dec << st.st_ino;
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, file;
    if (!(fields >> number >> kind >> mode >> access >> pid >> file)) continue;
    // The device's major and minor may be printed with leading zeros (08:01): compare them as numbers.
    unsigned major_seen = 0, minor_seen = 0;
    unsigned long inode_seen = 0;
    if (kind == "FLOCK" && std::sscanf(file.c_str(), "%x:%x:%lu", &major_seen, &minor_seen, &inode_seen) == 3 &&
        major_seen == major(st.st_dev) && minor_seen == minor(st.st_dev) && inode_seen == st.st_ino &&
        pid != std::to_string(::getpid())) {
      return pid;
    }
  }
  return "";
}

}  // namespace

ArtifactRootLock::ArtifactRootLock(const std::filesystem::path& root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) throw std::runtime_error("cannot create the artifacts folder " + root.string() + ": " + ec.message());
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open the artifacts folder " + root.string() + ": " + os_error(errno));
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR && interrupt_signal() == 0);
  if (rc != 0) {
    const int err = errno;
    const std::string holder = err == EWOULDBLOCK ? flock_holder(fd) : "";
    ::close(fd);
    throw_if_interrupted();
    if (err == EWOULDBLOCK) {
      throw RootInUse("another nnx-conformance run holds " + root.string() +
                      (holder.empty() ? "" : " (pid " + holder + ")") +
                      "; wait for it to finish or choose another artifacts folder");
    }
    throw std::runtime_error("cannot lock " + root.string() + ": " + os_error(err));
  }
  fd_ = fd;
}

ArtifactRootLock::~ArtifactRootLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace nnx
