#include "runtime/library_probe.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <onnxruntime_c_api.h>

#include "base/interrupt.h"

namespace nnx {
namespace {

constexpr std::size_t kMaxVersionBytes = 256;
constexpr std::size_t kMaxAnswerBytes = 4096;
constexpr char kVersionMark = 'V';  // the child's answer: 'V' + the version, or 'P' + the problem
constexpr char kProblemMark = 'P';
constexpr char kExitMark = 'X';     // or 'X' + the status the library passed to exit()
constexpr int kAnswerFd = 3;

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void write_answer(char mark, const std::string& text) {
  std::string answer = mark + text;
  answer.push_back('\0');  // the answer's end (a process the library started may hold the pipe open)
  write_all(kAnswerFd, answer);
}

// Registered last before the load, so run first should a constructor call exit(): the status answered, and
// none of the parent's exit handlers or static destructors run in the child.
void answer_exit(int status, void*) {
  write_answer(kExitMark, std::to_string(status));
  ::_exit(0);
}

// The forked child: only the answer pipe kept (as descriptor 3), the library loaded, the answer written.
[[noreturn]] void probe_in_child(const std::string& path, int answer) {
  if (answer != kAnswerFd && ::dup2(answer, kAnswerFd) < 0) ::_exit(127);
  ::close_range(kAnswerFd + 1, ~0U, 0);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::on_exit(answer_exit, nullptr);
  const LoadedLibrary loaded = load_library(path);
  if (loaded.problem.empty()) {
    write_answer(kVersionMark, loaded.version);
  } else {
    write_answer(kProblemMark, loaded.problem);
  }
  ::_exit(0);
}

// What the child wrote up to its answer's end, the pipe's close or the deadline; `timed_out` when it passed.
std::string read_answer(int fd, bool& timed_out) {
  std::string answer;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kProbeSeconds);
  char buffer[1024];
  while (answer.size() < kMaxAnswerBytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline is checked above
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: exited (or answered and is exiting)
    answer.append(buffer, static_cast<std::size_t>(n));
    if (const std::size_t end = answer.find('\0'); end != std::string::npos) return answer.substr(0, end);
  }
  return answer;
}

int wait_for(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

LoadedLibrary load_library(const std::string& path) {
  LoadedLibrary loaded;
  dlerror();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    loaded.problem = why ? why : "cannot be opened";
    return loaded;
  }
  using GetApiBase = const OrtApiBase* (*)();
  auto get_base = reinterpret_cast<GetApiBase>(::dlsym(handle, "OrtGetApiBase"));
  const OrtApiBase* base = get_base ? get_base() : nullptr;
  const char* version = base && base->GetVersionString ? base->GetVersionString() : nullptr;
  if (!get_base) {
    loaded.problem = "does not export OrtGetApiBase (not an ONNX Runtime library)";
  } else if (!base) {
    loaded.problem = "is not a usable ONNX Runtime library: OrtGetApiBase() gave no API base";
  } else if (!version) {
    loaded.problem = "is not a usable ONNX Runtime library: it gives no version string (GetVersionString() "
                     "returned NULL)";
  } else if (::strnlen(version, kMaxVersionBytes) == kMaxVersionBytes) {
    loaded.problem = "is not a usable ONNX Runtime library: its version string is longer than " +
                     std::to_string(kMaxVersionBytes - 1) + " bytes";
  }
  if (!loaded.problem.empty()) {
    ::dlclose(handle);
    return loaded;
  }
  loaded.handle = handle;
  loaded.base = base;
  loaded.get_api_base = reinterpret_cast<void*>(get_base);
  loaded.version = version;
  return loaded;
}

std::optional<std::string> probe_problem(const std::string& path) {
  if (void* already = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {  // its constructors ran here already
    ::dlclose(already);
    return std::nullopt;
  }
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return std::string("cannot be tried in a child process: ") + std::strerror(errno);
  std::fflush(nullptr);  // nothing buffered is written twice should the child's exit flush it
  const pid_t child = ::fork();
  if (child == 0) probe_in_child(path, pipe_fds[1]);
  ::close(pipe_fds[1]);
  if (child < 0) {
    ::close(pipe_fds[0]);
    return std::string("cannot be tried in a child process: ") + std::strerror(errno);
  }
  bool timed_out = false;
  const std::string answer = read_answer(pipe_fds[0], timed_out);
  ::close(pipe_fds[0]);
  if (timed_out) ::kill(child, SIGKILL);
  const int status = wait_for(child);
  const std::string tried = "was tried in a child process first: ";
  if (timed_out) {
    return tried + "loading it did not finish within " + std::to_string(kProbeSeconds) +
           " s (a constructor that blocks?); the child was killed";
  }
  if (WIFSIGNALED(status)) {
    return tried + "loading it killed the process with " + signal_text(WTERMSIG(status)) +
           " (a constructor that crashes?)";
  }
  if (!answer.empty() && answer[0] == kExitMark) {
    return tried + "loading it called exit(" + answer.substr(1) + ") (a constructor that ends the process?)";
  }
  if (answer.empty() || (answer[0] != kVersionMark && answer[0] != kProblemMark)) {
    return tried + "loading it ended the process (exit code " + std::to_string(WEXITSTATUS(status)) +
           ") before OrtGetApiBase answered (a constructor that calls _exit?)";
  }
  if (answer[0] == kProblemMark) return answer.substr(1);
  return std::nullopt;
}

}  // namespace nnx
