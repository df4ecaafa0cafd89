// The check stage (doc/record-format.md §4): onnx.checker (full check, by path) in the worker, then the
// artifact manifest of the profile folder (artifacts.h). Failure: checker-error. On a pass the record gets
// opset.model and artifacts.files, and the detail {opset, ir_version, producer, inputs, outputs}.
#include <string>
#include <vector>

#include "artifacts/artifacts.h"
#include "artifacts/layout.h"
#include "record/record.h"
#include "stages/stages.h"

namespace nnx {

bool run_check_stage(StageContext& context) {
  using nlohmann::json;
  const auto folder = profile_folder(context.root, context.profile->name);
  json reply;
  try {
    reply = context.exporter->check_model(folder / kModelFile);
  } catch (const WorkerError& e) {
    json detail{{"error", std::string("exporter worker: ") + e.what()}, {"log", context.exporter->log_tail(20)}};
    context.exporter->stop();
    context.record.set_stage_failed(Stage::check, FailureClass::checker_error, std::move(detail));
    return false;
  }
  if (!reply["error"].is_null()) {
    context.record.set_stage_failed(Stage::check, FailureClass::checker_error, json{{"error", reply["error"]}});
    return false;
  }
  try {
    const auto external = reply.value("external_data", std::vector<std::string>{});
    context.record.artifacts.files = build_manifest(folder, external);
  } catch (const StageFailure& f) {
    context.record.set_stage_failed(Stage::check, f.failure(), f.detail());
    return false;
  }
  context.record.opset.model = reply.at("opset");
  context.record.set_stage_passed(Stage::check,
                   json{{"opset", reply["opset"]},
                        {"ir_version", reply["ir_version"]},
                        {"producer", reply["producer"]},
                        {"inputs", reply["inputs"]},
                        {"outputs", reply["outputs"]}});
  return true;
}

}  // namespace nnx
