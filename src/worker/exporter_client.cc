#include "worker/exporter_client.h"

#include <utility>

#include "worker/worker_identity.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

namespace wire = worker_protocol;
using Clock = std::chrono::steady_clock;

struct AddTime {
  double& sum;
  Clock::time_point start = Clock::now();
  ~AddTime() { sum += std::chrono::duration<double>(Clock::now() - start).count(); }
};

}  // namespace

ExporterClient::ExporterClient(const WorkerCommand& command, std::chrono::milliseconds timeout) : timeout_(timeout) {
  AddTime timed{seconds_};
  WorkerLimits limits = default_worker_limits();
  identity_ = worker_identity(command, limits, timeout);
  worker_ = std::make_unique<WorkerProcess>(command, std::move(limits));
}

void ExporterClient::abandon() noexcept {
  if (!worker_) return;
  worker_->abandon();
  worker_.reset();
}

ExporterClient::~ExporterClient() { stop(); }

WorkerReply ExporterClient::ask(const nlohmann::json& request, const OutgoingFrames& frames) {
  if (!worker_) throw WorkerError(WorkerError::Kind::died, "the exporter worker was stopped");
  AddTime timed{seconds_};
  WorkerReply answer = worker_->exchange(request, frames.tensors(), timeout_);
  const nlohmann::json& reply = answer.body;
  if (!reply.value(wire::kOk, false)) {
    const bool says_why = reply.contains(wire::kError) && reply[wire::kError].is_string();
    throw WorkerError(WorkerError::Kind::malformed, says_why ? reply[wire::kError].get<std::string>() : reply.dump());
  }
  return answer;
}

nlohmann::json ExporterClient::dependencies(const std::vector<std::string>& modules) {
  if (answered_.is_object() && answered_modules_ == modules && running()) return answered_;  // see the header
  nlohmann::json reply = ask(nlohmann::json{{wire::kOp, wire::kOpDependencies}, {wire::kModules, modules}}).body;
  const auto problems = reply.find(wire::kProblems);
  if (problems == reply.end() || !problems->is_array() || !problems->empty()) return reply;  // asked again
  answered_modules_ = modules;
  answered_ = reply;
  if (auto seconds = answered_.find(wire::kImportSeconds); seconds != answered_.end() && seconds->is_object()) {
    for (auto& [module, value] : seconds->items()) value = 0.0;  // imported by the request just made
  }
  return reply;
}

WorkerReply ExporterClient::export_model(const nlohmann::json& request, const OutgoingFrames& frames) {
  return ask(request, frames);
}

WorkerReply ExporterClient::reference(const nlohmann::json& request, const OutgoingFrames& frames) {
  return ask(request, frames);
}

nlohmann::json ExporterClient::check_model(const std::filesystem::path& path) {
  return ask(nlohmann::json{{wire::kOp, wire::kOpCheck}, {wire::kPath, std::filesystem::absolute(path).string()}}).body;
}

std::string ExporterClient::log_tail(std::size_t lines) const { return worker_ ? worker_->log_tail(lines) : ""; }

void ExporterClient::stop() {
  if (!worker_) return;
  AddTime timed{seconds_};
  worker_.reset();
}

}  // namespace nnx
