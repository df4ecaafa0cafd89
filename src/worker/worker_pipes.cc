// worker_pipes.cc — pipes and writes without SIGPIPE; contract in worker_pipes.h.
#include "worker/worker_pipes.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "base/error.h"
#include "worker/worker_error.h"

namespace nnx::worker_io {

namespace {

// A close-on-exec duplicate at 4 or above, so that dup2 onto 0..3 in the child never collides.
int move_high(int fd) {
  if (fd >= 4) return fd;
  int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 4);
  int err = errno;
  ::close(fd);
  if (high < 0) throw WorkerError(WorkerError::Kind::start_failed, "cannot duplicate a pipe: " + errno_text(err));
  return high;
}

}  // namespace

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

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

Pipe::Pipe() {
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

Pipe::~Pipe() {
  close_fd(read);
  close_fd(write);
}

}  // namespace nnx::worker_io
