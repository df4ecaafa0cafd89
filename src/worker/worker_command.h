// worker_command.h — which worker to start and how long to wait for each answer (worker/PROTOCOL.md,
// "Process").
//
// Contract:
//  * A WorkerCommand names the interpreter, the worker script and the environment entries added to (or
//    overriding) the parent's environment for the worker. It is plain data: nothing is started here.
//  * Search order (resolve_worker_command fills only the empty fields; <checkout> is the checkout this
//    build belongs to, base/build_info.h):
//      python: explicit value, env NNX_PYTHON, <checkout>/.venv/bin/python (when it exists),
//              "python3" looked up on the parent's PATH;
//      script: explicit value, env NNX_WORKER_SCRIPT, <checkout>/worker/nnx_worker.py; a build with no
//              checkout (a wheel) takes <folder of this executable>/../_worker/nnx_worker.py (the package's
//              copy beside nnx/_bin/nnx-conformance; doc/install.md).
//    A wheel's `nnx-conformance` command sets NNX_PYTHON to the installing environment's interpreter.
//    NNX_WORKER_SCRIPT is also how tests put a stand-in worker in its place (tests/fakes/).
//  * Default timeout of one request: env NNX_WORKER_TIMEOUT_SECONDS (a positive number) if set, else 600 s.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nnx {

struct WorkerCommand {
  std::filesystem::path python;
  std::filesystem::path script;
  std::vector<std::pair<std::string, std::string>> extra_env;
};

// `chosen` when a caller chose a command (used as given), else both fields resolved by the search order above:
// the one rule every front end's worker start uses.
WorkerCommand default_worker_command(const std::optional<WorkerCommand>& chosen = std::nullopt);
// `given` with its empty python/script filled in by the search order.
WorkerCommand resolve_worker_command(WorkerCommand given);
// `chosen` when given, else NNX_WORKER_TIMEOUT_SECONDS or 600 s; throws std::invalid_argument naming a
// malformed value.
std::chrono::milliseconds default_worker_timeout(const std::optional<std::chrono::milliseconds>& chosen = std::nullopt);

}  // namespace nnx
