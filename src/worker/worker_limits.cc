// worker_limits.cc — the default bounds of a worker request; contract in worker_limits.h.
#include "worker/worker_limits.h"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "base/interrupt.h"

namespace nnx {

std::uint64_t max_worker_output_bytes() {
  const char* value = std::getenv("NNX_WORKER_MAX_OUTPUT_BYTES");
  if (value == nullptr || *value == '\0') return WorkerLimits{}.max_output_bytes;
  const std::string text = value;
  std::uint64_t bytes = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes, 10);
  if (ec != std::errc() || end != text.data() + text.size() || bytes == 0) {
    throw std::invalid_argument("NNX_WORKER_MAX_OUTPUT_BYTES=" + text + " is not a positive number of bytes");
  }
  return bytes;
}

WorkerLimits default_worker_limits() {
  WorkerLimits limits;
  limits.max_output_bytes = max_worker_output_bytes();
  limits.interrupt_signal = [] { return interrupt_signal(); };
  return limits;
}

}  // namespace nnx
