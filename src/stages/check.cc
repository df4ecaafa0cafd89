// The check stage (doc/record-format.md §4): onnx.checker (full check, by path) in the worker, then the
// artifact manifest of the profile folder (artifacts.h). Failure: checker-error. On a pass the record gets
// opset.model and artifacts.files, and the detail {opset, ir_version, producer, inputs, outputs}. Which check
// a kind runs is stages/kind_hooks.h's: this one (check_with_worker) for a kind the worker exports, the tool's
// own reader for an imported ONNX file (onnx_file_stages.h; no worker).
#include <string>
#include <vector>

#include "artifacts/artifacts.h"
#include "artifacts/layout.h"
#include "record/record.h"
#include "stages/kind_hooks.h"
#include "stages/stages.h"
#include "stages/worker_failure.h"
#include "worker/worker_protocol.h"

namespace nnx {

bool run_check_stage(StageContext& context) { return kind_stages(context.profile->kind()).check_stage(context); }

bool check_with_worker(StageContext& context) {
  using nlohmann::json;
  namespace wire = worker_protocol;
  namespace detail_key = rf::detail_key;
  const auto folder = profile_folder(context.root, context.profile->name);
  json reply;
  try {
    reply = context.exporter->check_model(folder / kModelFile);
  } catch (const WorkerError& e) {
    context.record.set_stage_failed(Stage::check, FailureClass::checker_error,
                                    worker_failure_detail(*context.exporter, e));
    return false;
  }
  if (!reply[wire::kError].is_null()) {
    context.record.set_stage_failed(Stage::check, FailureClass::checker_error,
                                    json{{detail_key::kError, reply[wire::kError]}});
    return false;
  }
  try {
    const auto external = reply.value(wire::kExternalData, std::vector<std::string>{});
    context.record.artifacts.files = build_manifest(folder, external, model_kind_facts(context.profile->kind()).form);
  } catch (const StageFailure& f) {
    context.record.set_stage_failed(Stage::check, f.failure(), f.detail());
    return false;
  }
  context.record.opset.model = reply.at(wire::kOpset);
  context.record.set_stage_passed(Stage::check,
                   json{{detail_key::kOpset, reply[wire::kOpset]},
                        {detail_key::kIrVersion, reply[wire::kIrVersion]},
                        {detail_key::kProducer, reply[wire::kProducer]},
                        {detail_key::kInputs, reply[wire::kInputs]},
                        {detail_key::kOutputs, reply[wire::kOutputs]}});
  return true;
}

}  // namespace nnx
