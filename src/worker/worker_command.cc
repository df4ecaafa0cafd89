// worker_command.cc — the worker's command line and request timeout; contract in worker_command.h.
#include "worker/worker_command.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <system_error>

#include "base/build_info.h"
#include "base/loaded_file.h"

namespace nnx {

namespace {

std::string env_value(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

}  // namespace

WorkerCommand resolve_worker_command(WorkerCommand given) {
  const std::filesystem::path source_dir = build_checkout_dir();
  if (given.python.empty()) {
    std::string from_env = env_value("NNX_PYTHON");
    std::error_code ec;
    if (!from_env.empty()) {
      given.python = from_env;
    } else if (std::filesystem::path venv = source_dir / ".venv" / "bin" / "python";
               !source_dir.empty() && std::filesystem::exists(venv, ec)) {
      given.python = venv;
    } else {
      given.python = "python3";
    }
  }
  if (given.script.empty()) {
    std::string from_env = env_value("NNX_WORKER_SCRIPT");
    if (!from_env.empty()) {
      given.script = from_env;
    } else if (!source_dir.empty()) {
      given.script = source_dir / "worker" / "nnx_worker.py";
    } else {
      given.script = executable_file().parent_path().parent_path() / "_worker" / "nnx_worker.py";
    }
  }
  return given;
}

WorkerCommand default_worker_command(const std::optional<WorkerCommand>& chosen) {
  return chosen ? *chosen : resolve_worker_command(WorkerCommand{});
}

std::chrono::milliseconds default_worker_timeout(const std::optional<std::chrono::milliseconds>& chosen) {
  if (chosen) return *chosen;
  std::string text = env_value("NNX_WORKER_TIMEOUT_SECONDS");
  if (text.empty()) return std::chrono::milliseconds(600'000);
  char* end = nullptr;
  errno = 0;
  double seconds = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 ||
      seconds > 1e7)
    throw std::invalid_argument("NNX_WORKER_TIMEOUT_SECONDS=" + text + " is not a positive number of seconds");
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000.0)));
}

}  // namespace nnx
