// What the export stage asks a model kind (doc/record-format.md §4 export, §10; doc/architecture.md, "Adding a
// model kind"): the stage (export.cc) is one path for every kind the worker exports: the profile folder made,
// the kind's request sent with its tensors, the answer read by the one export-answer rule (model_state
// recorded whenever the exporter was called; state-changed first, even when the exporter also raised; then
// export-error for an exporter that raised or wrote no model.onnx), a worker that failed said once
// (worker_failure.h). A kind answers only what its request holds and what it keeps of the answer:
//   feed-forward  the §2 network's config and parameters, the pinned exporter arguments and the example
//                 batch drawn with seed 7 (stages/feedfwd_export.cc);
//   module, ONNX file with its factory
//                 the factory, the input specs and dims, every match case's drawn (or given) inputs; from
//                 the answer the module's identity and the case tensors and factory copy stored
//                 (stages/module_export.cc).
// An ONNX file without a factory is imported, not exported (onnx_file_stages.h); with one, the worker is asked
// for its reference against the copy (imported_file_export). Which kind answers is stages/kind_hooks.h's.
#pragma once

#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "base/failure.h"
#include "stages/stage_context.h"
#include "worker/tensor_wire.h"

namespace nnx {

class ExportKind {
 public:
  virtual ~ExportKind() = default;
  // The worker's request (worker/PROTOCOL.md, "export", "module_export"), its tensors in `frames`.
  virtual nlohmann::json request(OutgoingFrames& frames) = 0;
  // What the kind reads of the answer before the export-answer rule: nullopt to go on, or the stage's result
  // when the answer ends it here (a factory that does not import: the dependencies stage's failure). Throws
  // UsageError for inputs the forward cannot take (the run's usage error).
  virtual std::optional<bool> read_first(const nlohmann::json& answer) = 0;
  // Once the exporter wrote model.onnx: what the kind keeps of the answer (its stored tensors), and the stage's
  // detail.
  virtual nlohmann::json passed(const nlohmann::json& answer, AnswerFrames& frames) = 0;
  // The class of a failure of the tool's own step (reading given inputs, storing what the answer holds, an
  // answer that does not parse): tool-error where the record format has it, else export-error (v1).
  virtual FailureClass own_step_failure() const = 0;
};

// Each kind's export hooks, over `context` (they must not outlive it).
std::unique_ptr<ExportKind> feedfwd_export(StageContext& context);        // stages/feedfwd_export.cc
std::unique_ptr<ExportKind> module_export(StageContext& context);         // stages/module_export.cc
// An ONNX file checked against its factory: a module's, the request marked `imported` (the copy is not
// exported again) with the graph inputs' `bind` to the forward's parameters (stages/module_export.cc).
std::unique_ptr<ExportKind> imported_file_export(StageContext& context);

// The one export-answer rule (export.cc): model_state whenever the answer holds it (the exporter was called);
// state-changed first, even when the exporter also raised (its failure kept beside, `export`); then export-error
// for an exporter that raised or wrote no model.onnx. Records the failure; returns whether the export passed
// that far (the stage itself is then the kind's to pass).
bool read_export_answer(StageContext& context, const nlohmann::json& answer);

// The stage's one path through the worker (export.cc), for a kind the worker exports; an ONNX file checked
// against its factory comes here after its import (onnx_import.cc).
bool export_with_worker(StageContext& context);

}  // namespace nnx
