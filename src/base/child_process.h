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
// `open_exit_fd` gives a descriptor of a child not yet reaped that poll() finds readable once it has exited
// (a pidfd, close-on-exec), so that a parent waiting for output or exit wakes at once for either; -1 where
// the kernel has none (before Linux 5.3), and the caller then polls in slices.
#pragma once

#include <sys/types.h>

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

}  // namespace nnx
