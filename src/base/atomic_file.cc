#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "base/error.h"
#include "base/failure.h"

namespace nnx {
namespace {

// What a node that is not a regular file is, in words.
std::string node_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

void require_file_or_new(const std::filesystem::path& path, const std::string& label) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;  // new (or unreachable: the write says why)
  throw UsageError(label + " " + path.string() + " is " + node_kind(st.st_mode) +
                   "; give the path of the report file (only a regular file or a new file is written; " +
                   path.string() + " is left as it is)");
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  const auto parent = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw WriteError("cannot create " + parent.string() + ": " + ec.message());
  require_file_or_new(path, "the output path");
  std::string tmpl = (parent / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw WriteError("cannot write in " + parent.string() + ": " + errno_text(errno));
  auto fail = [&](const std::string& what) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    throw WriteError(what + ": " + errno_text(err));
  };
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write " + tmpl);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) fail("cannot set the mode of " + tmpl);
  if (::fsync(fd) != 0) fail("cannot flush " + tmpl);
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    throw WriteError("cannot close " + tmpl + ": " + errno_text(errno));
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw WriteError("cannot replace " + path.string() + ": " + errno_text(err));
  }
  const int dir_fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void require_writable_file_path(const std::filesystem::path& path, const std::string& label) {
  require_file_or_new(path, label);
  std::error_code ec;
  const auto parent = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::filesystem::create_directories(parent, ec);
  if (ec) throw ConformanceError("cannot create the report's folder " + parent.string() + ": " + ec.message());
  if (!std::filesystem::is_directory(parent, ec)) {
    throw ConformanceError("the report's folder " + parent.string() + " is not a folder");
  }
  std::string probe = (parent / ("." + path.filename().string() + ".probe-XXXXXX")).string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    throw ConformanceError("cannot write the report in " + parent.string() + ": " + errno_text(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace nnx
