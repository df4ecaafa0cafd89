// worker_spawn.cc — the worker started with its pipes (base/child_process.h); contract in worker_spawn.h.
#include "worker/worker_spawn.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <unistd.h>  // environ, with C linkage (a declaration of our own clashes with it in a unity batch)

#include "base/child_process.h"
#include "base/error.h"
#include "runtime/runtime_telemetry.h"
#include "worker/worker_error.h"
#include "worker/worker_pipes.h"

namespace nnx::worker_io {

namespace {

std::vector<std::string> child_environment(std::vector<std::pair<std::string, std::string>> extra) {
  // The worker may import a Python onnxruntime (an exporter's optional helper): its telemetry stays off too.
  for (auto& kv : runtime_telemetry_off_variables()) {
    std::erase_if(extra, [&](const auto& given) { return given.first == kv.first; });
    extra.push_back(std::move(kv));
  }
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    std::string_view key = text.substr(0, text.find('='));
    bool overridden = std::any_of(extra.begin(), extra.end(), [&](const auto& kv) { return kv.first == key; });
    if (!overridden) env.emplace_back(text);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

}  // namespace

std::vector<std::string> worker_environment(const WorkerCommand& command) { return child_environment(command.extra_env); }

SpawnedWorker spawn_worker(const WorkerCommand& command) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(command.script, ec))
    throw WorkerError(WorkerError::Kind::start_failed, "worker script not found: " + command.script.string());

  Pipe in, response, log_pipe;
  const std::string python = command.python.string();
  const std::vector<std::string> env = worker_environment(command);
  const bool search_path = python.find('/') == std::string::npos;
  pid_t pid = -1;
  try {
    pid = spawn_in_own_group({python, command.script.string()},
                             {ChildFd::copy(0, in.read), ChildFd::copy(1, log_pipe.write),
                              ChildFd::copy(2, log_pipe.write), ChildFd::copy(3, response.write)},
                             &env, search_path);
  } catch (const std::system_error& e) {
    throw WorkerError(WorkerError::Kind::start_failed,
                      "cannot start the worker '" + python + "'" + (search_path ? " (searched on PATH)" : "") +
                          ": " + errno_text(e.code().value()));
  }
  SpawnedWorker spawned{pid, in.release_write(), response.release_read(), log_pipe.release_read()};
  set_nonblocking(spawned.stdin_fd);
  set_nonblocking(spawned.response_fd);
  set_nonblocking(spawned.log_fd);
  return spawned;
}

}  // namespace nnx::worker_io
