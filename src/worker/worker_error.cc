// worker_error.cc — WorkerError and the names of its kinds; contract in worker_error.h.
#include "worker/worker_error.h"

namespace nnx {

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

}  // namespace nnx
