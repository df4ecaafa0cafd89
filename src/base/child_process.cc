// spawn_in_own_group; contract in child_process.h.
#include "base/child_process.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <system_error>
#include <thread>

extern char** environ;

namespace nnx {
namespace {

// This process's lifeline: made at the first spawn; the write end stays open, unused, until the process
// ends. A child forked from it (no exec) closes the copies it inherited and makes its own at its first spawn,
// so that the parent's children live and die with the parent alone. The lock is held across fork(), so the
// child finds the lifeline whole.
struct Lifeline {
  std::mutex mutex;
  int read_end = -1;
  int write_end = -1;
};

Lifeline& lifeline() {
  static Lifeline* const line = [] {
    auto* made = new Lifeline();  // never destroyed: an atfork handler may use it until the process ends
    ::pthread_atfork([] { lifeline().mutex.lock(); }, [] { lifeline().mutex.unlock(); },
                     [] {
                       Lifeline& inherited = lifeline();
                       if (inherited.read_end >= 0) ::close(inherited.read_end);
                       if (inherited.write_end >= 0) ::close(inherited.write_end);
                       inherited.read_end = inherited.write_end = -1;
                       inherited.mutex.unlock();
                     });
    return made;
  }();
  return *line;
}

int lifeline_read_end() {
  Lifeline& line = lifeline();
  const std::lock_guard<std::mutex> lock(line.mutex);
  if (line.read_end < 0) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category());
    line.read_end = fds[0];
    line.write_end = fds[1];
  }
  return line.read_end;
}

}  // namespace

pid_t spawn_in_own_group(const std::vector<std::string>& argv, const std::vector<ChildFd>& fds,
                         const std::vector<std::string>* environment, bool search_path) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  for (const ChildFd& fd : fds) {
    if (fd.parent_fd >= 0) {
      posix_spawn_file_actions_adddup2(&actions, fd.parent_fd, fd.child_fd);
    } else {
      posix_spawn_file_actions_addopen(&actions, fd.child_fd, fd.open_path.c_str(), fd.open_flags, 0600);
    }
  }
  posix_spawn_file_actions_adddup2(&actions, lifeline_read_end(), kLifelineFd);
  sigset_t no_signals, all_signals;
  sigemptyset(&no_signals);
  sigfillset(&all_signals);
  sigdelset(&all_signals, SIGKILL);
  sigdelset(&all_signals, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  posix_spawnattr_setsigdefault(&attr, &all_signals);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  if (environment) {
    for (const std::string& entry : *environment) env.push_back(const_cast<char*>(entry.c_str()));
    env.push_back(nullptr);
  }
  char* const* envp = environment ? env.data() : environ;

  pid_t pid = -1;
  const int rc = search_path ? posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp)
                             : posix_spawn(&pid, args[0], &actions, &attr, args.data(), envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::system_error(rc, std::generic_category());
  return pid;
}

int open_exit_fd(pid_t child) { return static_cast<int>(::syscall(SYS_pidfd_open, child, 0)); }

void watch_lifeline(std::function<void()> before_exit) {
  struct stat st {};
  if (::fstat(kLifelineFd, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  ::fcntl(kLifelineFd, F_SETFD, FD_CLOEXEC);  // a child this child starts gets a lifeline of its own
  std::thread([before_exit = std::move(before_exit)] {
    char byte;
    ssize_t n;
    while ((n = ::read(kLifelineFd, &byte, 1)) != 0) {
      if (n < 0 && errno != EINTR) return;  // not a lifeline after all
    }
    if (before_exit) before_exit();
    ::kill(0, SIGKILL);  // the whole group: this child and whatever it started
  }).detach();
}

}  // namespace nnx
