// The export stage (doc/record-format.md §4 export, §10, §11), one path for every kind the worker exports
// (export_kind.h says what a kind answers): the worker gives the model its mixed mode and gradients,
// snapshots it, calls the profile's exporter and compares the snapshot; the answer is read by the one rule
// below. An ONNX-file profile's export is its import (onnx_file_stages.h), through this path again when the
// file is checked against its factory.
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "artifacts/layout.h"
#include "base/error.h"
#include "record/record.h"
#include "stages/export_kind.h"
#include "stages/kind_hooks.h"
#include "stages/stages.h"
#include "stages/worker_failure.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;
namespace detail_key = rf::detail_key;

}  // namespace

bool read_export_answer(StageContext& context, const json& answer) {
  const json warnings = answer.value(wire::kWarnings, json::array());
  const json exception = answer.value(wire::kException, json());
  const json export_failure{{detail_key::kError, exception}, {detail_key::kLog, answer.value(wire::kLog, "")}};
  if (answer.contains(wire::kModelState)) context.record.model_state = answer[wire::kModelState];
  const json changed = answer.value(wire::kChanged, json::array());
  if (!changed.empty()) {
    json detail{{detail_key::kChanged, changed}, {detail_key::kWarnings, warnings}};
    if (!exception.is_null()) detail[detail_key::kExport] = export_failure;
    return stage_failed(context, FailureClass::state_changed, std::move(detail));
  }
  if (!exception.is_null()) return stage_failed(context, FailureClass::export_error, export_failure);
  if (!answer.value(wire::kWroteModel, false)) {
    return stage_failed(context, FailureClass::export_error,
                        json{{detail_key::kError, "the exporter wrote no model.onnx"},
                             {detail_key::kLog, answer.value(wire::kLog, "")}});
  }
  return true;
}

bool export_with_worker(StageContext& context) {
  const std::unique_ptr<ExportKind> kind = kind_stages(context.profile->kind()).export_hooks(context);
  const auto folder = profile_folder(context.root, context.profile->name);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) {
    return stage_failed(context, FailureClass::export_error,
                        json{{detail_key::kError, "cannot create " + folder.string() + ": " + ec.message()},
                             {detail_key::kLog, ""}});
  }
  json answer;
  try {  // a given input whose file changed since the profile was read is refused here (the tool's own step)
    OutgoingFrames sent;
    const json request = kind->request(sent);
    WorkerReply reply = context.exporter->export_model(request, sent);
    answer = std::move(reply.body);
    AnswerFrames frames(std::move(reply.frames));
    if (const std::optional<bool> ended = kind->read_first(answer)) return *ended;
    if (!read_export_answer(context, answer)) return false;
    context.record.set_stage_passed(Stage::export_model, kind->passed(answer, frames));
    return true;
  } catch (const WorkerError& e) {
    return stage_failed(context, FailureClass::export_error, worker_failure_detail(*context.exporter, e));
  } catch (const Interrupted&) {
    throw;
  } catch (const UsageError&) {  // inputs the forward cannot take: the run's usage error
    throw;
  } catch (const std::exception& e) {  // an input that cannot be read, a tensor that cannot be stored, an answer
    return stage_failed(context, kind->own_step_failure(),  // that does not parse: the tool's step, never the exporter's
                        json{{detail_key::kError, std::string("reading the given inputs, storing the case tensors or "
                                                              "the factory's copy, or reading the answer: ") + e.what()},
                             {detail_key::kLog, answer.is_object() ? answer.value(wire::kLog, "") : ""}});
  }
}

bool run_export_stage(StageContext& context) { return kind_stages(context.profile->kind()).export_stage(context); }

}  // namespace nnx
