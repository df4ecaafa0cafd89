// worker_spawn.h — starting the worker process (worker/PROTOCOL.md, "Process"; base/child_process.h). Used by
// worker_process.cc and worker_identity.cc only.
//
// Contract: spawn_worker starts `<python> <script>` of a resolved WorkerCommand directly (posix_spawn, no
// shell; a python without '/' is looked up on PATH) in a new process group it leads, with stdin = the
// request pipe, fd 3 = the response pipe, stdout+stderr = one log pipe, every signal at its default action
// and unblocked, and the parent's environment plus/overridden by `extra_env` (and ONNX Runtime's telemetry
// switched off, runtime/runtime_telemetry.h). The parent's ends are returned non-blocking and
// close-on-exec. Throws WorkerError(start_failed) when the script is not a regular file or the
// interpreter cannot be started; nothing is left open then.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "worker/worker_command.h"

namespace nnx::worker_io {

struct SpawnedWorker {
  pid_t pid = -1;       // also its process group id
  int stdin_fd = -1;    // requests (write end)
  int response_fd = -1; // fd 3 in the worker (read end)
  int log_fd = -1;      // fds 1 and 2 in the worker (read end)
};

SpawnedWorker spawn_worker(const WorkerCommand& command);

// The environment spawn_worker gives the worker of `command` now: the parent's, plus/overridden by
// command.extra_env, with ONNX Runtime's telemetry switched off (what worker_identity.h compares).
std::vector<std::string> worker_environment(const WorkerCommand& command);

}  // namespace nnx::worker_io
