// worker_limits.h — the bounds a worker request lives within (worker/PROTOCOL.md, "Process": the deadline,
// the response and output bounds, an interruption).
//
// Contract:
//  * WorkerLimits is handed to a WorkerProcess when it is made (worker_process.h); the worker client reads
//    no environment variable and no global flag of its own for them.
//      max_log_bytes       the tail of the worker's stdout+stderr kept in memory (the rest is drained away);
//      max_response_bytes  the longest answer line accepted (longer: output_limit); its tensors are not in
//                          it but in the binary frames after it (tensor_frames.h), bounded by `frames`;
//      frames              the tensor frames' bounds: 64 MiB per tensor (doc/record-format.md §10), 2 GiB
//                          for one answer's frames together, 65536 frames;
//      max_output_bytes    the most stdout+stderr bytes the worker may write while answering one request
//                          (beyond it the worker's process group is killed: output_limit);
//      interrupt_signal    asked while waiting: 0, or the signal that must end the wait (the worker's
//                          process group is then killed and reaped and nnx::Interrupted(signal) thrown).
//                          Empty: nothing interrupts a request.
//  * default_worker_limits(): 1 MiB of log tail, 16 MiB per answer line, max_worker_output_bytes(), and
//    base/interrupt.h's interrupt_signal (SIGINT/SIGTERM recorded by the run's handlers).
//  * max_worker_output_bytes(): env NNX_WORKER_MAX_OUTPUT_BYTES (a positive integer) or 1 GiB. Below the
//    bound the output is drained into a bounded tail, so a chatty exporter never blocks and never grows
//    memory. Throws std::invalid_argument naming a malformed value (so does default_worker_limits()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "worker/tensor_frames.h"

namespace nnx {

struct WorkerLimits {
  std::size_t max_log_bytes = std::size_t{1} << 20;
  std::size_t max_response_bytes = std::size_t{16} << 20;
  FrameLimits frames;
  std::uint64_t max_output_bytes = std::uint64_t{1} << 30;
  std::function<int()> interrupt_signal;
};

std::uint64_t max_worker_output_bytes();
WorkerLimits default_worker_limits();

}  // namespace nnx
