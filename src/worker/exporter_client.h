// The exporter client (src/worker/): the requests the stages make of the Python worker (worker/PROTOCOL.md): which
// modules it can import, the export itself, the PyTorch reference forward and the ONNX checker. It owns the WorkerProcess (started on
// construction, stopped by `stop` or the destructor), its identity (worker_identity.h: what it was started
// with) and the time spent waiting for it.
//
// Every call returns the worker's ok:true answer (with the tensor frames after it, tensor_wire.h, for the ops
// that carry tensors); a worker that cannot answer, or answers ok:false, throws
// WorkerError (the stage turns it into its failure class with the log tail). Interrupted (SIGINT/SIGTERM)
// propagates: the run unwinds without a record.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "worker/tensor_wire.h"
#include "worker/worker_process.h"

namespace nnx {

class ExporterClient {
 public:
  // Starts the worker; throws WorkerError(start_failed).
  ExporterClient(const WorkerCommand& command, std::chrono::milliseconds timeout);
  ~ExporterClient();

  // {environment, versions, problems} for `modules` (the worker's `dependencies` answer). Asked again for the
  // same modules after an answer without problems, that answer is given without a request (what one process
  // has imported and their versions do not change; worker/PROTOCOL.md), with every import_seconds 0:
  // nothing was imported again. An answer naming a problem is asked for again.
  nlohmann::json dependencies(const std::vector<std::string>& modules);
  // The worker's `export` (or `module_export`) answer for a complete export request whose tensor references
  // name `frames`.
  WorkerReply export_model(const nlohmann::json& request, const OutgoingFrames& frames);
  // The worker's `reference` (or `module_reference`) answer: the PyTorch forward of the request's inputs.
  WorkerReply reference(const nlohmann::json& request, const OutgoingFrames& frames);
  // The worker's `check` answer for the model at `path`.
  nlohmann::json check_model(const std::filesystem::path& path);

  std::string log_tail(std::size_t lines) const;
  // Whether the worker is running and may serve another request (false after any WorkerError or stop).
  bool running() const { return worker_ && worker_->running(); }
  // Forgets the worker's captured output: the next profile it serves sees only its own log lines.
  void clear_log() { if (worker_) worker_->clear_log(); }
  // Stops the worker (idempotent); later calls throw WorkerError(died).
  void stop();
  // What the worker was started with (worker_identity.h): another client of an equal identity is its equal.
  const std::string& identity() const { return identity_; }
  // Whether the worker may serve another request now: running, and not exited since its last answer.
  bool alive() const { return worker_ && worker_->running() && !worker_->exited(); }
  // Tells the worker to exit (closes its stdin) without waiting: `stop` (or the destructor) then waits.
  void begin_stop() noexcept { if (worker_) worker_->close_input(); }
  // In a forked child: forgets the parent's worker without signalling it (worker_process.h abandon).
  void abandon() noexcept;
  // Seconds spent starting, asking and stopping the worker.
  double seconds() const { return seconds_; }

 private:
  WorkerReply ask(const nlohmann::json& request, const OutgoingFrames& frames = {});

  std::unique_ptr<WorkerProcess> worker_;
  std::chrono::milliseconds timeout_;
  std::string identity_;
  std::vector<std::string> answered_modules_;  // the last dependencies request's modules, and its answer
  nlohmann::json answered_;
  double seconds_ = 0.0;
};

}  // namespace nnx
