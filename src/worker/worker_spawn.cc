// worker_spawn.cc — posix_spawn of the worker with its pipes; contract in worker_spawn.h.
#include "worker/worker_spawn.h"

#include <signal.h>
#include <spawn.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "runtime/runtime_telemetry.h"
#include "worker/worker_error.h"
#include "worker/worker_pipes.h"

extern char** environ;

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

// Own process group, every signal at its default action and unblocked.
void set_child_attributes(posix_spawnattr_t& attr) {
  sigset_t no_signals, all_signals;
  sigemptyset(&no_signals);
  sigfillset(&all_signals);
  sigdelset(&all_signals, SIGKILL);
  sigdelset(&all_signals, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  posix_spawnattr_setsigdefault(&attr, &all_signals);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

}  // namespace

SpawnedWorker spawn_worker(const WorkerCommand& command) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(command.script, ec))
    throw WorkerError(WorkerError::Kind::start_failed, "worker script not found: " + command.script.string());

  Pipe in, response, log_pipe;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, in.read, 0);
  posix_spawn_file_actions_adddup2(&actions, log_pipe.write, 1);
  posix_spawn_file_actions_adddup2(&actions, log_pipe.write, 2);
  posix_spawn_file_actions_adddup2(&actions, response.write, 3);
  set_child_attributes(attr);

  const std::string python = command.python.string();
  const std::string script = command.script.string();
  std::vector<char*> argv{const_cast<char*>(python.c_str()), const_cast<char*>(script.c_str()), nullptr};
  std::vector<std::string> env = child_environment(command.extra_env);
  std::vector<char*> envp;
  for (auto& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const bool search_path = python.find('/') == std::string::npos;
  pid_t pid = -1;
  int rc = search_path ? posix_spawnp(&pid, python.c_str(), &actions, &attr, argv.data(), envp.data())
                       : posix_spawn(&pid, python.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    throw WorkerError(WorkerError::Kind::start_failed,
                      "cannot start the worker '" + python + "'" + (search_path ? " (searched on PATH)" : "") +
                          ": " + errno_text(rc));
  SpawnedWorker spawned{pid, in.release_write(), response.release_read(), log_pipe.release_read()};
  set_nonblocking(spawned.stdin_fd);
  set_nonblocking(spawned.response_fd);
  set_nonblocking(spawned.log_fd);
  return spawned;
}

}  // namespace nnx::worker_io
