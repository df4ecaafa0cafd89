// worker_identity.cc — the text that makes two workers interchangeable; contract in worker_identity.h.
#include "worker/worker_identity.h"

#include <algorithm>
#include <vector>

#include "worker/worker_spawn.h"

namespace nnx {

std::string worker_identity(const WorkerCommand& command, const WorkerLimits& limits,
                            std::chrono::milliseconds request_timeout) {
  const WorkerCommand resolved = resolve_worker_command(command);
  std::vector<std::string> environment = worker_io::worker_environment(resolved);
  std::sort(environment.begin(), environment.end());
  // NUL separates the parts: no path, variable or number holds one.
  std::string text = resolved.python.string() + '\0' + resolved.script.string() + '\0';
  text += std::to_string(limits.max_log_bytes) + '\0' + std::to_string(limits.max_response_bytes) + '\0' +
          std::to_string(limits.max_output_bytes) + '\0' + std::to_string(request_timeout.count()) + '\0';
  for (const std::string& entry : environment) text += entry + '\0';
  return text;
}

}  // namespace nnx
