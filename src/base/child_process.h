// Starting a child process as every child of ours starts (doc/architecture.md, "The worker's lifetime"): the
// exporter worker (worker/worker_spawn.h) and a runtime matrix's cell (matrix/cell_runner.h).
//
// `spawn_in_own_group` starts argv[0] with posix_spawn (no shell; looked up on PATH when `search_path`) in a
// new process group it leads, every signal at its default action and unblocked (but glibc's own real-time
// signals, which it keeps), with the file descriptors `fds` name set up in it (each a copy of one of the
// parent's, or a file opened for it) and `environment` as its environment (the parent's when null). The
// parent's close-on-exec descriptors (every pipe of ours) stay out of the child; name 0, 1 and 2 so that
// none of the parent's standard ones is inherited. It returns the child's pid (also its process group id), or throws
// std::system_error with posix_spawn's error when it cannot start; the caller words the refusal.
//
// Every child also gets the read end of this process's lifeline as descriptor `kLifelineFd` (9): one pipe
// per process, made at the first spawn, whose write end only this process holds (close-on-exec, never given
// to a child) and nobody writes to. It reaches end-of-file when this process is gone however it ended
// (SIGKILL included) and never because a thread ended: a child started from a worker thread lives as long
// as the process, not the thread (PR_SET_PDEATHSIG would follow the thread). A child of ours calls
// `watch_lifeline` at its start: a thread of its own that waits for that end-of-file, then calls
// `before_exit` and kills the child's whole process group (SIGKILL), itself included. Where descriptor 9 is
// not a pipe (the program was not started by us) it does nothing. A child forked from this process without
// exec (Python's os.fork) closes the lifeline it inherited (pthread_atfork) and makes its own at its first
// spawn: the parent's children neither wait for the fork nor die with it.
//
// `open_exit_fd` gives a descriptor of a child not yet reaped that poll() finds readable once it has exited
// (a pidfd, close-on-exec), so that a parent waiting for output or exit wakes at once for either; -1 where
// the kernel has none (before Linux 5.3), and the caller then polls in slices.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace nnx {

struct ChildFd {
  int child_fd = -1;
  int parent_fd = -1;     // copied into child_fd when >= 0
  std::string open_path;  // else this file is opened as child_fd
  int open_flags = 0;
  static ChildFd copy(int child_fd, int parent_fd) { return {child_fd, parent_fd, {}, 0}; }
  static ChildFd open(int child_fd, std::string path, int flags) { return {child_fd, -1, std::move(path), flags}; }
};

pid_t spawn_in_own_group(const std::vector<std::string>& argv, const std::vector<ChildFd>& fds,
                         const std::vector<std::string>* environment, bool search_path);

int open_exit_fd(pid_t child);

inline constexpr int kLifelineFd = 9;
void watch_lifeline(std::function<void()> before_exit = {});

}  // namespace nnx
