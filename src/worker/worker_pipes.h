// worker_pipes.h — the file descriptors between the core and its worker (worker/PROTOCOL.md, "Process":
// fd 0 requests, fd 3 responses, fds 1 and 2 the log capture). Used by worker_spawn.cc and
// worker_process.cc only.
//
// Contract:
//  * Pipe: one pipe, both ends close-on-exec and numbered 4 or above (so that dup2 onto 0..3 in the child
//    never collides); both ends closed when it goes out of scope unless released. Throws
//    WorkerError(start_failed) when a pipe cannot be made.
//  * write_without_sigpipe: write() that never raises SIGPIPE in the caller (SIGPIPE is blocked around
//    the write and a SIGPIPE this write raised is consumed); errno as write() left it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <utility>

namespace nnx::worker_io {

// Closes fd (when open) and sets it to -1.
void close_fd(int& fd);
void set_nonblocking(int fd);
ssize_t write_without_sigpipe(int fd, const char* data, std::size_t size);

struct Pipe {
  int read = -1;
  int write = -1;
  Pipe();
  ~Pipe();
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  int release_read() { return std::exchange(read, -1); }
  int release_write() { return std::exchange(write, -1); }
};

}  // namespace nnx::worker_io
