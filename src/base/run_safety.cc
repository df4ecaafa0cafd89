#include "base/run_safety.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <system_error>

namespace nnx {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void record_interrupt(int sig) {
  if (g_signal == 0) g_signal = sig;
}

std::string os_error(int err) { return std::error_code(err, std::generic_category()).message(); }

}  // namespace

Interrupted::Interrupted(int sig)
    : std::runtime_error("interrupted by " + signal_text(sig)), signal_(sig) {}

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = record_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and its loop looks at the flag
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

int interrupt_signal() noexcept { return static_cast<int>(g_signal); }

void throw_if_interrupted() {
  if (const int sig = interrupt_signal()) throw Interrupted(sig);
}

std::string signal_text(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

ArtifactRootLock::ArtifactRootLock(const std::filesystem::path& root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) throw std::runtime_error("cannot create the artifacts folder " + root.string() + ": " + ec.message());
  const int dir = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) throw std::runtime_error("cannot open the artifacts folder " + root.string() + ": " + os_error(errno));
  const int fd = ::openat(dir, kRootLockFile, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  const int open_err = errno;
  ::close(dir);
  const std::string shown = (root / kRootLockFile).string();
  if (fd < 0) {
    if (open_err == ELOOP) throw std::runtime_error("the lock file " + shown + " is a symlink; refusing to follow it");
    throw std::runtime_error("cannot open the lock file " + shown + ": " + os_error(open_err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error("the lock file " + shown + " is not a regular file");
  }
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR && interrupt_signal() == 0);
  if (rc != 0) {
    const int err = errno;
    std::string holder;
    char buffer[64] = {};
    const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    if (n > 0) {
      std::string text(buffer, static_cast<std::size_t>(n));
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
      if (!text.empty() && text.find_first_not_of("0123456789pid ") == std::string::npos) holder = " (" + text + ")";
    }
    ::close(fd);
    throw_if_interrupted();
    if (err == EWOULDBLOCK) {
      throw RootInUse("another nnx-conformance run holds " + root.string() + holder + " (lock " + shown +
                      "); wait for it to finish or choose another --artifacts folder");
    }
    throw std::runtime_error("cannot lock " + shown + ": " + os_error(err));
  }
  // The holder's pid, for the message a refused run prints (diagnostic only; the flock is the lock).
  const std::string pid = "pid " + std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
  fd_ = fd;
}

ArtifactRootLock::~ArtifactRootLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

std::uint64_t max_worker_output_bytes() {
  const char* value = std::getenv("NNX_WORKER_MAX_OUTPUT_BYTES");
  if (value == nullptr || *value == '\0') return std::uint64_t{1} << 30;
  const std::string text = value;
  std::uint64_t bytes = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes, 10);
  if (ec != std::errc() || end != text.data() + text.size() || bytes == 0) {
    throw std::invalid_argument("NNX_WORKER_MAX_OUTPUT_BYTES=" + text + " is not a positive number of bytes");
  }
  return bytes;
}

void require_writable_report_path(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw UsageError("--output " + path.string() + " is a folder; give the path of the report file");
  }
  const auto parent = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  std::filesystem::create_directories(parent, ec);
  if (ec) throw ConformanceError("cannot create the report's folder " + parent.string() + ": " + ec.message());
  if (!std::filesystem::is_directory(parent, ec)) {
    throw ConformanceError("the report's folder " + parent.string() + " is not a folder");
  }
  std::string probe = (parent / ("." + path.filename().string() + ".probe-XXXXXX")).string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    throw ConformanceError("cannot write the report in " + parent.string() + ": " + os_error(errno));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace nnx
