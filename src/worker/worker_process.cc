// worker_process.cc — spawning and talking to the Python worker; contract in worker_process.h.
#include "worker/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "base/interrupt.h"
#include "worker/worker_limits.h"
#include "runtime/runtime_telemetry.h"

#ifndef NNX_SOURCE_DIR
#error "NNX_SOURCE_DIR must be defined (the CMake build defines it)"
#endif

extern char** environ;

namespace nnx {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kGracePeriod{2000};
constexpr std::chrono::milliseconds kPollSlice{50};
constexpr std::size_t kChunk = 1 << 16;
constexpr int kMaxChunksPerDrain = 64;  // a fast writer cannot starve the loop

std::string env_value(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::string errno_text(int err) { return std::string(strerror(err)); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// A close-on-exec duplicate at 4 or above, so that dup2 onto 0..3 in the child never collides.
int move_high(int fd) {
  if (fd >= 4) return fd;
  int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 4);
  int err = errno;
  ::close(fd);
  if (high < 0) throw WorkerError(WorkerError::Kind::start_failed, "cannot duplicate a pipe: " + errno_text(err));
  return high;
}

struct Pipe {
  int read = -1;
  int write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw WorkerError(WorkerError::Kind::start_failed, "cannot create a pipe: " + errno_text(errno));
    read = fds[0];
    write = fds[1];
    try {
      read = move_high(read);
      write = move_high(write);
    } catch (...) {
      close_fd(read);
      close_fd(write);
      throw;
    }
  }
  ~Pipe() {
    close_fd(read);
    close_fd(write);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int release_read() { return std::exchange(read, -1); }
  int release_write() { return std::exchange(write, -1); }
};

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// write() with SIGPIPE blocked in this thread; a SIGPIPE this write raised is consumed.
ssize_t write_without_sigpipe(int fd, const char* data, std::size_t size) {
  sigset_t pipe_set, old_set, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  sigemptyset(&pending);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  ssize_t written = ::write(fd, data, size);
  int err = errno;
  if (written < 0 && err == EPIPE && !was_pending) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = err;
  return written;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  std::string name = abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(sig);
  const char* text = sigdescr_np(sig);
  if (text) name += " (" + std::string(text) + ")";
  return name;
}

// Printable ASCII as is, everything else as \xHH; at most `limit` bytes of input.
std::string quote_bytes(std::string_view bytes, std::size_t limit) {
  std::string out = "\"";
  for (unsigned char c : bytes.substr(0, limit)) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  out += "\"";
  if (bytes.size() > limit) out += " ...";
  return out;
}

std::vector<std::string> child_environment(std::vector<std::pair<std::string, std::string>> extra) {
  // The worker may import a Python onnxruntime (an exporter's optional helper): its telemetry stays off too.
  for (auto& kv : runtime_telemetry_off_variables()) {
    std::erase_if(extra, [&](const auto& given) { return given.first == kv.first; });
    extra.push_back(std::move(kv));
  }
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    std::string_view key = text.substr(0, text.find('='));
    bool overridden = std::any_of(extra.begin(), extra.end(), [&](const auto& kv) { return kv.first == key; });
    if (!overridden) env.emplace_back(text);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

std::string op_name(const json& req) {
  if (req.is_object() && req.contains("op") && req["op"].is_string()) return "'" + req["op"].get<std::string>() + "'";
  return "the request";
}

}  // namespace

// ---------------------------------------------------------------------------------------------

WorkerError::WorkerError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

const char* to_string(WorkerError::Kind kind) noexcept {
  switch (kind) {
    case WorkerError::Kind::start_failed: return "start_failed";
    case WorkerError::Kind::died: return "died";
    case WorkerError::Kind::timed_out: return "timed_out";
    case WorkerError::Kind::malformed: return "malformed";
    case WorkerError::Kind::output_limit: return "output_limit";
  }
  return "unknown";
}

WorkerCommand resolve_worker_command(WorkerCommand given) {
  const std::filesystem::path source_dir = NNX_SOURCE_DIR;
  if (given.python.empty()) {
    std::string from_env = env_value("NNX_PYTHON");
    std::error_code ec;
    if (!from_env.empty()) {
      given.python = from_env;
    } else if (std::filesystem::path venv = source_dir / ".venv" / "bin" / "python"; std::filesystem::exists(venv, ec)) {
      given.python = venv;
    } else {
      given.python = "python3";
    }
  }
  if (given.script.empty()) {
    std::string from_env = env_value("NNX_WORKER_SCRIPT");
    given.script = from_env.empty() ? source_dir / "worker" / "nnx_worker.py" : std::filesystem::path(from_env);
  }
  return given;
}

WorkerCommand default_worker_command() { return resolve_worker_command(WorkerCommand{}); }

std::chrono::milliseconds default_worker_timeout() {
  std::string text = env_value("NNX_WORKER_TIMEOUT_SECONDS");
  if (text.empty()) return std::chrono::milliseconds(600'000);
  char* end = nullptr;
  errno = 0;
  double seconds = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 ||
      seconds > 1e7)
    throw std::invalid_argument("NNX_WORKER_TIMEOUT_SECONDS=" + text + " is not a positive number of seconds");
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000.0)));
}

// ---------------------------------------------------------------------------------------------

WorkerProcess::WorkerProcess(const WorkerCommand& given, std::size_t max_log_bytes, std::size_t max_response_bytes)
    : max_log_bytes_(std::max<std::size_t>(max_log_bytes, 1)),
      max_response_bytes_(std::max<std::size_t>(max_response_bytes, 1)) {
  const WorkerCommand command = resolve_worker_command(given);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(command.script, ec))
    throw WorkerError(WorkerError::Kind::start_failed, "worker script not found: " + command.script.string());

  Pipe in, response, log_pipe;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, in.read, 0);
  posix_spawn_file_actions_adddup2(&actions, log_pipe.write, 1);
  posix_spawn_file_actions_adddup2(&actions, log_pipe.write, 2);
  posix_spawn_file_actions_adddup2(&actions, response.write, 3);
  sigset_t no_signals, all_signals;
  sigemptyset(&no_signals);
  sigfillset(&all_signals);
  sigdelset(&all_signals, SIGKILL);
  sigdelset(&all_signals, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  posix_spawnattr_setsigdefault(&attr, &all_signals);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  const std::string python = command.python.string();
  const std::string script = command.script.string();
  std::vector<char*> argv{const_cast<char*>(python.c_str()), const_cast<char*>(script.c_str()), nullptr};
  std::vector<std::string> env = child_environment(command.extra_env);
  std::vector<char*> envp;
  for (auto& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const bool search_path = python.find('/') == std::string::npos;
  pid_t pid = -1;
  int rc = search_path ? posix_spawnp(&pid, python.c_str(), &actions, &attr, argv.data(), envp.data())
                       : posix_spawn(&pid, python.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    throw WorkerError(WorkerError::Kind::start_failed,
                      "cannot start the worker '" + python + "'" + (search_path ? " (searched on PATH)" : "") +
                          ": " + errno_text(rc));
  pid_ = pid;
  stdin_fd_ = in.release_write();
  response_fd_ = response.release_read();
  log_fd_ = log_pipe.release_read();
  set_nonblocking(stdin_fd_);
  set_nonblocking(response_fd_);
  set_nonblocking(log_fd_);
}

WorkerProcess::~WorkerProcess() {
  close_fd(stdin_fd_);
  if (running()) {
    // After SIGINT/SIGTERM (run_safety.h) the worker gets no grace period: its group is killed at once.
    const auto deadline = interrupt_signal() ? Clock::now() : Clock::now() + kGracePeriod;
    while (!has_exited() && Clock::now() < deadline) {
      std::vector<pollfd> fds;
      if (log_fd_ >= 0) fds.push_back({log_fd_, POLLIN, 0});
      if (response_fd_ >= 0) fds.push_back({response_fd_, POLLIN, 0});
      ::poll(fds.data(), fds.size(), static_cast<int>(kPollSlice.count()));
      if (log_fd_ >= 0 && drain_log() == Drain::eof) close_fd(log_fd_);
      if (response_fd_ >= 0 && drain_response() == Drain::eof) close_fd(response_fd_);
      if (response_.size() > max_response_bytes_) response_.clear();
    }
    kill_and_reap();
  }
  close_fd(response_fd_);
  close_fd(log_fd_);
}

bool WorkerProcess::has_exited() const {
  if (!running()) return true;
  siginfo_t info{};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  return rc < 0 || info.si_pid == pid_;
}

void WorkerProcess::kill_and_reap() {
  if (!running()) return;
  // The worker is not reaped yet, so its pid (= process group id) cannot have been reused.
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  pid_t rc;
  do {
    rc = ::waitpid(pid_, &status, 0);
  } while (rc < 0 && errno == EINTR);
  status_ = rc == pid_ ? status : -1;
  close_fd(stdin_fd_);
  if (log_fd_ >= 0 && drain_log() == Drain::eof) close_fd(log_fd_);
}

std::string WorkerProcess::exit_description() const {
  std::string text = "worker (pid " + std::to_string(pid_) + ") ";
  if (!status_ || *status_ < 0) return text + "is gone (its exit status is unknown)";
  int status = *status_;
  if (WIFEXITED(status)) return text + "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return text + "was killed by signal " + signal_name(WTERMSIG(status));
  return text + "ended with wait status " + std::to_string(status);
}

void WorkerProcess::fail(WorkerError::Kind kind, const std::string& message) {
  kill_and_reap();
  std::string text = message;
  std::string tail = log_tail(5);
  if (!tail.empty()) text += "; last output:\n" + tail;
  throw WorkerError(kind, text);
}

void WorkerProcess::append_log(const char* data, std::size_t size) {
  log_.append(data, size);
  if (log_.size() > 2 * max_log_bytes_) {
    std::size_t excess = log_.size() - max_log_bytes_;
    log_.erase(0, excess);
    log_dropped_ += excess;
  }
}

WorkerProcess::Drain WorkerProcess::drain_log() {
  char buf[kChunk];
  for (int chunks = 0; chunks < kMaxChunksPerDrain; ++chunks) {
    ssize_t n = ::read(log_fd_, buf, sizeof buf);
    if (n > 0) {
      append_log(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return Drain::eof;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? Drain::open : Drain::eof;
  }
  return Drain::open;
}

WorkerProcess::Drain WorkerProcess::drain_response() {
  char buf[kChunk];
  for (int chunks = 0; chunks < kMaxChunksPerDrain; ++chunks) {
    ssize_t n = ::read(response_fd_, buf, sizeof buf);
    if (n > 0) {
      response_.append(buf, static_cast<std::size_t>(n));
      if (response_.size() > max_response_bytes_ + 1) return Drain::open;  // the caller enforces the limit
      continue;
    }
    if (n == 0) return Drain::eof;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? Drain::open : Drain::eof;
  }
  return Drain::open;
}

std::string WorkerProcess::log_tail(std::size_t max_lines) const {
  std::string_view text(log_);
  if (text.size() > max_log_bytes_) text.remove_prefix(text.size() - max_log_bytes_);
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (max_lines == 0 || text.empty()) return {};
  std::size_t start = text.size();
  for (std::size_t lines = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++lines == max_lines) break;
  }
  return std::string(text.substr(start));
}

json WorkerProcess::request(const json& req) { return request(req, default_worker_timeout()); }

json WorkerProcess::request(const json& req, std::chrono::milliseconds timeout) {
  if (!running()) throw WorkerError(WorkerError::Kind::died, exit_description() + "; it takes no more requests");
  const std::string what = op_name(req);
  const std::string payload = req.dump() + "\n";
  // stdout+stderr written while answering this request, against NNX_WORKER_MAX_OUTPUT_BYTES (run_safety.h).
  const std::uint64_t output_bound = max_worker_output_bytes();
  const std::uint64_t output_at_start = log_dropped_ + log_.size();
  std::size_t written = 0;
  bool response_eof = false;
  const auto deadline = Clock::now() + timeout;

  for (;;) {
    if (written == payload.size() || stdin_fd_ < 0) {
      if (auto newline = response_.find('\n'); newline != std::string::npos) {
        if (newline > max_response_bytes_) break;  // handled as output_limit below
        std::string line = response_.substr(0, newline);
        response_.erase(0, newline + 1);
        json parsed;
        try {
          parsed = json::parse(line);
        } catch (const json::parse_error& e) {
          fail(WorkerError::Kind::malformed, "malformed response to " + what + " (not JSON: " + e.what() +
                                                 "); first bytes: " + quote_bytes(line, 64));
        }
        if (!parsed.is_object() || !parsed.contains("ok") || !parsed["ok"].is_boolean())
          fail(WorkerError::Kind::malformed, "malformed response to " + what +
                                                 " (not an object with a boolean \"ok\"); first bytes: " +
                                                 quote_bytes(line, 64));
        return parsed;
      }
    }
    if (response_.size() > max_response_bytes_) break;
    if (const std::uint64_t output = log_dropped_ + log_.size() - output_at_start; output > output_bound) {
      fail(WorkerError::Kind::output_limit,
           "worker wrote " + std::to_string(output) + " bytes on stdout/stderr while answering " + what +
               ", more than the bound of " + std::to_string(output_bound) +
               " bytes (NNX_WORKER_MAX_OUTPUT_BYTES); its process group was killed");
    }
    if (const int sig = interrupt_signal()) {  // SIGINT/SIGTERM: stop the worker's group, then unwind
      kill_and_reap();
      throw Interrupted(sig);
    }
    if (has_exited()) {
      if (log_fd_ >= 0) drain_log();
      if (response_fd_ >= 0 && drain_response() == Drain::eof) close_fd(response_fd_);
      if (response_.find('\n') != std::string::npos && (written == payload.size() || stdin_fd_ < 0)) continue;
      kill_and_reap();
      fail(WorkerError::Kind::died, exit_description() + " before answering " + what);
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      fail(WorkerError::Kind::timed_out,
           "worker did not answer " + what + " within " +
               std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count()) +
               " ms; its process group was killed");
    }
    const auto slice = std::min<Clock::duration>(deadline - now, kPollSlice);
    int wait_ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count());

    std::vector<pollfd> fds;
    const bool want_write = stdin_fd_ >= 0 && written < payload.size();
    if (want_write) fds.push_back({stdin_fd_, POLLOUT, 0});
    if (!response_eof && response_fd_ >= 0) fds.push_back({response_fd_, POLLIN, 0});
    if (log_fd_ >= 0) fds.push_back({log_fd_, POLLIN, 0});
    int ready = ::poll(fds.data(), fds.size(), wait_ms);
    if (ready < 0 && errno != EINTR)
      fail(WorkerError::Kind::died, std::string("poll failed while waiting for the worker: ") + errno_text(errno));
    if (ready <= 0) continue;

    for (const pollfd& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == stdin_fd_) {
        while (written < payload.size()) {
          ssize_t n = write_without_sigpipe(stdin_fd_, payload.data() + written,
                                            std::min(payload.size() - written, kChunk));
          if (n > 0) {
            written += static_cast<std::size_t>(n);
          } else if (n < 0 && errno == EINTR) {
            continue;
          } else {
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) close_fd(stdin_fd_);  // EPIPE: it stopped reading
            break;
          }
        }
      } else if (p.fd == response_fd_) {
        if (drain_response() == Drain::eof) response_eof = true;
      } else if (p.fd == log_fd_) {
        if (drain_log() == Drain::eof) close_fd(log_fd_);
      }
    }
    if (response_eof && response_.find('\n') == std::string::npos) {
      // fd 3 closed without a full answer: the worker is exiting. Wait for it (bounded by the deadline).
      close_fd(response_fd_);
      while (!has_exited() && Clock::now() < deadline && !interrupt_signal()) {
        if (log_fd_ >= 0) {
          pollfd p{log_fd_, POLLIN, 0};
          ::poll(&p, 1, static_cast<int>(kPollSlice.count()));
          if (drain_log() == Drain::eof) close_fd(log_fd_);
        } else {
          ::poll(nullptr, 0, static_cast<int>(kPollSlice.count()));
        }
      }
      if (const int sig = interrupt_signal(); sig && !has_exited()) {
        kill_and_reap();
        throw Interrupted(sig);
      }
      if (!has_exited())
        fail(WorkerError::Kind::timed_out, "worker closed its response channel without answering " + what +
                                               " and did not exit in time; its process group was killed");
      kill_and_reap();
      fail(WorkerError::Kind::died, exit_description() + " before answering " + what);
    }
  }
  fail(WorkerError::Kind::output_limit, "response to " + what + " exceeds " + std::to_string(max_response_bytes_) +
                                            " bytes; first bytes: " + quote_bytes(response_, 64));
}

}  // namespace nnx
