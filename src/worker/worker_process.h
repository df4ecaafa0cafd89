// worker_process.h — the C++ end of the Python worker protocol (worker/PROTOCOL.md).
//
// Contract:
//  * WorkerProcess starts the worker of a WorkerCommand (worker_command.h; spawned as worker_spawn.h says:
//    no shell, its own process group, stdin = requests, fd 3 = responses, stdout+stderr = one log pipe).
//  * It works within the WorkerLimits it is given (worker_limits.h; default: default_worker_limits()).
//    It reads no environment variable and no global flag of its own while it runs.
//  * exchange() writes one JSON line, then a binary frame per tensor given (tensor_frames.h; the line gets
//    "frames": their count when there are any), and returns the ONE JSON object line the worker answers on
//    fd 3 with the frames its "frames" announces (a non-negative integer; absent: none), within `timeout`.
//    request() is exchange() without tensors, its answer's frames read and dropped. It returns ok:false
//    answers as they are (the caller decides); it throws WorkerError (worker_error.h) when the worker
//    cannot answer: `died` (exit status or signal name, plus the last log lines; also a worker that ends
//    inside a frame), `timed_out`, `malformed` (not a strict JSON object with a boolean "ok":
//    worker_answer.h, names the first bytes; or a "frames" count or frame header that limits.frames refuses,
//    checked before its bytes are allocated), `output_limit` (an answer line longer than max_response_bytes,
//    or more than max_output_bytes of stdout+stderr while answering). After any WorkerError the process group has been killed (SIGKILL) and
//    reaped; later requests throw `died`.
//  * While it waits, limits.interrupt_signal is asked; a signal it reports kills and reaps the process
//    group and throws nnx::Interrupted(signal) (base/error.h).
//  * While waiting, stdout/stderr are drained continuously (a flood never blocks the protocol) into a
//    bounded buffer that keeps the last max_log_bytes; log_tail() shows its last lines.
//  * Writing never raises SIGPIPE (worker_pipes.h).
//  * RAII: the destructor closes stdin, lets the worker exit for a short grace period (draining its
//    output; none when interrupt_signal reports a signal), then SIGKILLs the whole process group and reaps
//    the worker. No process is left behind (grandchildren that left the group with setsid are out of reach).
//  * Not thread-safe: one thread uses a WorkerProcess at a time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "worker/tensor_frames.h"
#include "worker/worker_command.h"
#include "worker/worker_error.h"
#include "worker/worker_limits.h"

namespace nnx {

using json = nlohmann::json;

// One answer: its JSON line and the tensor frames after it, in order.
struct WorkerReply {
  json body;
  std::vector<TensorFrame> frames;
};

class WorkerProcess {
 public:
  // Throws WorkerError(start_failed) when the script is not a file or the python cannot be started.
  explicit WorkerProcess(const WorkerCommand& command, WorkerLimits limits = default_worker_limits());
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  WorkerReply exchange(const json& req, const std::vector<const Tensor*>& tensors, std::chrono::milliseconds timeout);
  json request(const json& req, std::chrono::milliseconds timeout);
  json request(const json& req);  // with default_worker_timeout()

  // The last `max_lines` lines of the captured stdout+stderr (within the last max_log_bytes).
  std::string log_tail(std::size_t max_lines) const;
  // Forgets the captured output, so that a new profile's failure shows only its own log lines.
  void clear_log() noexcept { log_.clear(); }
  // Bytes of output discarded to keep the bound.
  std::size_t log_bytes_dropped() const noexcept { return log_dropped_; }
  // The worker's pid, which is also its process group id.
  pid_t pid() const noexcept { return pid_; }
  // False once the worker is known to have exited or been killed.
  bool running() const noexcept { return !status_.has_value(); }
  // Whether the worker has exited (asked of the kernel now; it is reaped later, by the destructor).
  bool exited() const { return has_exited(); }
  // Closes the worker's stdin, its sign to exit: the destructor then only waits (workers stopped side by side).
  void close_input() noexcept;
  // In a child forked from this process (no exec): forgets the worker without signalling it, its pipes
  // closed here. The parent's worker is neither inherited nor killed by the fork.
  void abandon() noexcept;

 private:
  struct Exchange;  // one request in flight (worker_process.cc)
  enum class Drain { open, eof };

  // Waiting for one answer (request()).
  bool request_sent(const Exchange& x) const;
  bool take_answer(Exchange& x);
  void check_bounds(const Exchange& x);
  bool answer_after_exit(Exchange& x);
  void pump(Exchange& x, int wait_ms);
  void send_payload(Exchange& x);
  [[noreturn]] void finish_without_answer(const Exchange& x);
  [[noreturn]] void fail_response_too_long(const Exchange& x);

  // The process and its output.
  Drain drain_log();
  Drain drain_response();
  void append_log(const char* data, std::size_t size);
  bool has_exited() const;
  void await_output_or_exit();
  void kill_and_reap();
  int interrupted() const;
  [[noreturn]] void interrupt(int signal);
  std::string exit_description() const;
  [[noreturn]] void fail(WorkerError::Kind kind, const std::string& message);

  WorkerLimits limits_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int response_fd_ = -1;
  int log_fd_ = -1;
  int exit_fd_ = -1;  // readable once the worker has exited (base/child_process.h open_exit_fd), or -1
  std::string log_;
  std::size_t log_dropped_ = 0;
  std::string response_;
  std::optional<int> status_;  // wait status once reaped
};

}  // namespace nnx
