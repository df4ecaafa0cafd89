// The bounds a worker request lives within (worker/PROTOCOL.md, "Bounds").
//
// `max_worker_output_bytes`: the most stdout+stderr bytes a worker may write while answering one request:
// env NNX_WORKER_MAX_OUTPUT_BYTES (a positive integer) or 1 GiB. Beyond it the worker's process group is
// killed and the request fails as output_limit (worker_process.h); below it the output is drained into a
// bounded tail, so a chatty exporter never blocks and never grows memory. Throws std::invalid_argument
// naming a malformed value.
#pragma once

#include <cstdint>

namespace nnx {

std::uint64_t max_worker_output_bytes();

}  // namespace nnx
