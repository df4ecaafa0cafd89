// worker_error.h — how talking to the worker fails (worker/PROTOCOL.md, "Process": what the core treats
// as fatal).
//
// Contract: WorkerError is thrown when the worker cannot answer, never for an `ok: false` answer (that is
// returned to the caller as it is). Its kind says why: `start_failed` (the script is not a file or the
// interpreter cannot be started), `died` (exit status or signal), `timed_out` (no complete answer before
// the deadline), `malformed` (not a JSON object with a boolean "ok"), `output_limit` (an answer or the
// stdout/stderr of one request beyond its bound). An Interrupted (base/error.h) is not a WorkerError.
#pragma once

#include <stdexcept>
#include <string>

namespace nnx {

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

}  // namespace nnx
