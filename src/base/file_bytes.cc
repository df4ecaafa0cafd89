// read_file_bytes, read_file_tail; contract in file_bytes.h.
#include "base/file_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace nnx {
namespace {

// An open descriptor of a file that is not a folder, closed when it goes.
class OpenFile {
 public:
  OpenFile(const std::filesystem::path& path, ErrorKind kind) : path_(path), kind_(kind) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw failure("open");
    if (::fstat(fd_, &info_) != 0) {
      const Error error = failure("stat");
      ::close(fd_);
      throw error;
    }
    if (S_ISDIR(info_.st_mode)) {
      ::close(fd_);
      throw Error(kind_, "cannot read " + path_.string() + ": it is a directory");
    }
  }
  ~OpenFile() { ::close(fd_); }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  bool regular() const { return S_ISREG(info_.st_mode); }
  std::size_t size() const { return static_cast<std::size_t>(info_.st_size); }

  // Appends what is left to `out`, up to `most` bytes in all; false when there was more than that.
  bool read_rest(std::string& out, std::size_t most) {
    char buffer[1 << 16];
    while (out.size() <= most) {
      const std::size_t want = std::min(sizeof buffer, most + 1 - out.size());
      const ssize_t got = ::read(fd_, buffer, want);
      if (got < 0) {
        if (errno == EINTR) continue;
        throw failure("read");
      }
      if (got == 0) return true;
      out.append(buffer, static_cast<std::size_t>(got));
    }
    return false;
  }

  void skip_to(std::size_t offset) {
    if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) throw failure("seek in");
  }

 private:
  Error failure(const char* what) const {
    return Error(kind_, "cannot " + std::string(what) + " " + path_.string() + ": " +
                            std::error_code(errno, std::generic_category()).message());
  }

  const std::filesystem::path& path_;
  ErrorKind kind_;
  int fd_ = -1;
  struct stat info_ {};
};

}  // namespace

std::string read_file_bytes(const std::filesystem::path& path, std::size_t limit, std::string_view limit_name,
                            ErrorKind kind) {
  OpenFile file(path, kind);
  const auto too_big = [&](const std::string& holds) {
    return Error(kind, path.string() + " holds " + holds + "more than " + std::string(limit_name) + " of " +
                           std::to_string(limit) + " bytes");
  };
  if (file.regular() && file.size() > limit) throw too_big(std::to_string(file.size()) + " bytes, ");
  std::string bytes;
  if (file.regular()) bytes.reserve(file.size());
  if (!file.read_rest(bytes, limit)) throw too_big("");
  return bytes;
}

std::string read_file_tail(const std::filesystem::path& path, std::size_t count, ErrorKind kind) {
  OpenFile file(path, kind);
  if (file.regular() && file.size() > count) file.skip_to(file.size() - count);
  std::string bytes;
  file.read_rest(bytes, static_cast<std::size_t>(-2));  // no limit: at most `count` are left of a regular file
  if (bytes.size() > count) bytes.erase(0, bytes.size() - count);
  return bytes;
}

}  // namespace nnx
