// worker_process.h — the C++ end of the Python worker protocol (worker/PROTOCOL.md).
//
// Contract:
//  * WorkerProcess starts `<python> <script>` directly (posix_spawn, no shell) in its own process
//    group, with stdin = request pipe, fd 3 = response pipe, stdout+stderr = one log pipe, and the
//    parent's environment plus/overridden by `extra_env`. Every signal starts at its default action
//    and unblocked in the worker.
//  * request() writes one JSON line and returns the ONE JSON object line the worker answers on fd 3,
//    within `timeout`. It returns ok:false answers as they are (the caller decides); it throws
//    WorkerError when the worker cannot answer: `died` (exit status or signal name, plus the last log
//    lines), `timed_out`, `malformed` (not a JSON object with a boolean "ok"; names the first bytes),
//    `output_limit` (a response longer than max_response_bytes). After any WorkerError the process
//    group has been killed (SIGKILL) and reaped; later requests throw `died`.
//  * While waiting, stdout/stderr are drained continuously (a flood never blocks the protocol) into a
//    bounded buffer that keeps the last max_log_bytes; log_tail() shows its last lines.
//  * Writing never raises SIGPIPE (it is blocked around the write and a pending one is consumed).
//  * RAII: the destructor closes stdin, lets the worker exit for a short grace period (draining its
//    output), then SIGKILLs the whole process group and reaps the worker. No process is left behind
//    (grandchildren that left the group with setsid are out of reach).
//  * Not thread-safe: one thread uses a WorkerProcess at a time.
//
// Search order (resolve_worker_command fills only the empty fields):
//   python: explicit value, env NNX_PYTHON, NNX_SOURCE_DIR/.venv/bin/python (when it exists),
//           "python3" looked up on the parent's PATH;
//   script: explicit value, env NNX_WORKER_SCRIPT, NNX_SOURCE_DIR/worker/nnx_worker.py.
// Default timeout: env NNX_WORKER_TIMEOUT_SECONDS (a positive number) if set, else 600 s.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <climits>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

using json = nlohmann::json;

struct WorkerCommand {
  std::filesystem::path python;
  std::filesystem::path script;
  std::vector<std::pair<std::string, std::string>> extra_env;
};

// Both fields resolved by the search order above (no explicit values).
WorkerCommand default_worker_command();
// `given` with its empty python/script filled in by the search order.
WorkerCommand resolve_worker_command(WorkerCommand given);
// NNX_WORKER_TIMEOUT_SECONDS or 600 s; throws std::invalid_argument naming a malformed value.
std::chrono::milliseconds default_worker_timeout();

class WorkerError : public std::runtime_error {
 public:
  enum class Kind { start_failed, died, timed_out, malformed, output_limit };
  WorkerError(Kind kind, const std::string& message);
  Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

// "start_failed", "died", "timed_out", "malformed", "output_limit".
const char* to_string(WorkerError::Kind kind) noexcept;

class WorkerProcess {
 public:
  // Throws WorkerError(start_failed) when the script is not a file or the python cannot be started.
  explicit WorkerProcess(const WorkerCommand& command, std::size_t max_log_bytes = 1 << 20,
                         std::size_t max_response_bytes = 64 << 20);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  json request(const json& req, std::chrono::milliseconds timeout);
  json request(const json& req);  // with default_worker_timeout()

  // The last `max_lines` lines of the captured stdout+stderr (within the last max_log_bytes).
  std::string log_tail(std::size_t max_lines) const;
  // Bytes of output discarded to keep the bound.
  std::size_t log_bytes_dropped() const noexcept { return log_dropped_; }
  // The worker's pid, which is also its process group id.
  pid_t pid() const noexcept { return pid_; }
  // False once the worker is known to have exited or been killed.
  bool running() const noexcept { return !status_.has_value(); }

 private:
  enum class Drain { open, eof };
  Drain drain_log();
  Drain drain_response();
  void append_log(const char* data, std::size_t size);
  bool has_exited() const;
  void kill_and_reap();
  std::string exit_description() const;
  [[noreturn]] void fail(WorkerError::Kind kind, const std::string& message);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int response_fd_ = -1;
  int log_fd_ = -1;
  std::size_t max_log_bytes_;
  std::size_t max_response_bytes_;
  std::string log_;
  std::size_t log_dropped_ = 0;
  std::string response_;
  std::optional<int> status_;  // wait status once reaped
};

}  // namespace nnx
