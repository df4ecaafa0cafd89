// worker_identity.h — what makes two exporter workers interchangeable (doc/architecture.md, "The worker's
// lifetime").
//
// Contract: a worker's environment is fixed when it starts. `worker_identity` is the text of everything
// that shapes a worker started now for `command` (resolved by worker_command.h's search order): its
// interpreter and script, its whole environment as spawn_worker would give it (the parent's environment at
// this moment, sorted, so that another NNX_PYTHON, NNX_WORKER_SCRIPT, NNX_ONNXRUNTIME_LIBRARY or any other
// variable gives another identity), its bounds (worker_limits.h) and the time it is given per request.
// Equal texts: a worker started for one may serve the other. Nothing is started here.
#pragma once

#include <chrono>
#include <string>

#include "worker/worker_command.h"
#include "worker/worker_limits.h"

namespace nnx {

std::string worker_identity(const WorkerCommand& command, const WorkerLimits& limits,
                            std::chrono::milliseconds request_timeout);

}  // namespace nnx
