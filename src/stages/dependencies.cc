// The dependencies stage (doc/record-format.md §4): the runtime library opens, and the exporter worker
// starts and can import every Python module the profile needs (a profile that needs none, an imported ONNX
// file, starts no worker). Failure: missing-dependency, the detail naming each problem and how to install.
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "base/build_info.h"
#include "base/interrupt.h"
#include "record/record.h"
#include "stages/stages.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using Clock = std::chrono::steady_clock;
namespace wire = worker_protocol;
namespace versions_key = rf::versions_key;

// Opens the runtime into the context; a problem naming it when it cannot be opened.
std::vector<std::string> open_runtime_into(StageContext& context, nlohmann::json& versions) {
  nlohmann::json& record_versions = context.record.versions;
  const auto started = Clock::now();
  try {
    context.runtime = context.open_runtime(context.profile->runtime, context.runtime_library);
    context.times.runtime_open_seconds += std::chrono::duration<double>(Clock::now() - started).count();
  } catch (const RuntimeUnavailable& e) {
    record_versions[context.profile->runtime] = nullptr;
    return {context.profile->runtime + ": " + e.what()};
  }
  versions[context.runtime->name()] = context.runtime->version();
  context.record.runtime.version = context.runtime->version();
  record_versions[context.runtime->name()] = context.runtime->version();
  record_versions[context.runtime->name() + versions_key::kLibrarySuffix] = context.runtime->location();
  record_host_facts(context.record);
  return {};
}

// The worker's answer for `modules`, or why it could not answer.
struct ModulesAnswer {
  nlohmann::json reply;
  std::string failure;  // set when the worker could not answer
};

// Starts the worker (unless a run handed a running one on: app/run_profile.h) and asks it for `modules`.
// Touches only context.exporter (and reads the worker's command and timeout), so that it may run on its own
// thread while the runtime opens (run_dependencies_stage).
ModulesAnswer ask_python_modules(StageContext& context, const std::vector<std::string>& modules) {
  try {
    if (!context.exporter || !context.exporter->running()) {
      context.exporter = std::make_unique<ExporterClient>(context.worker_command, context.worker_timeout);
    }
    return {context.exporter->dependencies(modules), {}};
  } catch (const Interrupted&) {
    throw;  // SIGINT/SIGTERM: no record, the run unwinds
  } catch (const std::exception& e) {
    context.exporter.reset();
    return {nullptr, e.what()};
  }
}

// Every problem the worker's answer names, with its versions and import times recorded.
std::vector<std::string> read_python_modules(StageContext& context, const std::vector<std::string>& modules,
                                             const ModulesAnswer& answer, nlohmann::json& versions) {
  const auto cannot_check = [&](const std::string& why) {
    std::string modules_text;
    for (const auto& m : modules) modules_text += (modules_text.empty() ? "" : ", ") + m;
    return "Python modules " + modules_text + " cannot be checked: " + why +
           "; install them with `make bootstrap` (or pip install torch onnx onnxscript)";
  };
  if (!answer.failure.empty()) return {cannot_check(answer.failure)};
  nlohmann::json& record_versions = context.record.versions;
  std::vector<std::string> problems;
  try {
    const nlohmann::json& reply = answer.reply;
    for (const auto& [k, v] : reply.at(wire::kEnvironment).items()) record_versions[k] = v;
    for (const auto& m : modules) {
      if (reply.at(wire::kVersions).contains(m)) versions[m] = reply[wire::kVersions][m];
    }
    for (const auto& p : reply.at(wire::kProblems)) problems.push_back(p.get<std::string>());
    if (const auto seconds = reply.find(wire::kImportSeconds); seconds != reply.end() && seconds->is_object()) {
      for (const auto& m : modules) {
        if (seconds->contains(m) && (*seconds)[m].is_number()) {
          context.times.import_seconds.emplace_back(m, (*seconds)[m].get<double>());
        }
      }
    }
  } catch (const std::exception& e) {
    context.exporter.reset();
    problems.push_back(cannot_check(e.what()));
  }
  return problems;
}

}  // namespace

bool run_dependencies_stage(StageContext& context) {
  nlohmann::json versions = nlohmann::json::object();
  std::vector<std::string> modules;
  for (const auto& m : context.profile->requirements()) {
    if (m != context.profile->runtime) modules.push_back(m);
  }
  // A new worker starts first and imports torch (seconds) on its own thread while this one opens the
  // runtime. A warm worker (handed on by the run) answers at once: it is asked on this thread, after the
  // runtime (a thread of its own would cost more than the answer).
  std::vector<std::string> problems;
  ModulesAnswer answer;
  if (modules.empty()) {  // nothing Python is needed (an imported ONNX file): no worker starts
    problems = open_runtime_into(context, versions);
    answer.reply = {{wire::kEnvironment, nlohmann::json::object()}, {wire::kVersions, nlohmann::json::object()},
                    {wire::kProblems, nlohmann::json::array()}};
  } else if (context.exporter && context.exporter->running()) {
    problems = open_runtime_into(context, versions);
    answer = ask_python_modules(context, modules);
  } else {
    std::future<ModulesAnswer> asked =
        std::async(std::launch::async, [&context, &modules] { return ask_python_modules(context, modules); });
    try {
      problems = open_runtime_into(context, versions);
    } catch (...) {
      asked.wait();  // the worker's thread is done with the context before it unwinds
      throw;
    }
    answer = asked.get();  // rethrows Interrupted
  }
  for (auto& p : read_python_modules(context, modules, answer, versions)) problems.push_back(std::move(p));
  nlohmann::json& record_versions = context.record.versions;
  if (const auto lock = build_dependency_lock_sha256(); !lock.empty()) {
    record_versions[versions_key::kDependencyLockSha256] = lock;
  }
  for (const char* key : {versions_key::kPython, versions_key::kPlatform, versions_key::kTorch, versions_key::kNumpy,
                          versions_key::kOnnx, versions_key::kOnnxscript, versions_key::kDependencyLockSha256}) {
    if (!record_versions.contains(key)) record_versions[key] = nullptr;
  }
  if (!problems.empty()) {
    std::string detail;
    for (const auto& p : problems) detail += (detail.empty() ? "" : "\n") + p;
    context.record.set_stage_failed(Stage::dependencies, FailureClass::missing_dependency, detail);
    return false;
  }
  context.record.set_stage_passed(Stage::dependencies, versions);
  return true;
}

}  // namespace nnx
