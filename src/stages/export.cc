// The export stage (doc/record-format.md §4): the worker puts the model in its mixed mode with gradients,
// snapshots it, calls the profile's exporter with the exact arguments of §4 and compares the snapshot.
// Failures: state-changed (reported first), export-error (the exporter raised, wrote no model.onnx, or the
// worker could not answer). model_state is recorded whenever the exporter was called.
#include <string>
#include <system_error>
#include <vector>

#include "artifacts/layout.h"
#include "model/feedfwd.h"
#include "record/record.h"
#include "stages/reference_outputs.h"
#include "stages/stages.h"
#include "worker/tensor_wire.h"

namespace nnx {
namespace {

using nlohmann::json;

// The worker's export request (worker/PROTOCOL.md, "export").
json export_request(const StageContext& context) {
  const Profile& profile = *context.profile;
  const std::vector<std::int64_t> example_shape = {profile.export_batch, profile.model.input_dim};
  json request = worker_network_fields(context.model);  // the model the profile's config built
  request.update(json{{"op", "export"},
                      {"exporter", profile.exporter},
                      {"options", profile.exporter_options()},
                      {"example_input", float32_tensor_json(example_shape, draw_input(example_shape, 7))},
                      {"output_dir", std::filesystem::absolute(profile_folder(context.root, profile.name)).string()},
                      {"model_file", kModelFile}});
  return request;
}

bool fail(StageContext& context, FailureClass failure, json detail) {
  context.record.set_stage_failed(Stage::export_model, failure, std::move(detail));
  return false;
}

}  // namespace

bool run_export_stage(StageContext& context) {
  const auto folder = profile_folder(context.root, context.profile->name);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) {
    return fail(context, FailureClass::export_error,
                json{{"error", "cannot create " + folder.string() + ": " + ec.message()}, {"log", ""}});
  }
  json reply;
  try {
    reply = context.exporter->export_model(export_request(context));
  } catch (const WorkerError& e) {
    json detail{{"error", std::string("exporter worker: ") + e.what()}, {"log", context.exporter->log_tail(20)}};
    context.exporter->stop();
    return fail(context, FailureClass::export_error, std::move(detail));
  }
  const json warnings = reply.value("warnings", json::array());
  const bool raised = reply.contains("exception") && !reply["exception"].is_null();
  const json export_failure{{"error", raised ? reply["exception"] : json()}, {"log", reply.value("log", "")}};
  context.record.model_state = reply.at("model_state");  // the exporter was called (§4)
  const json changed = reply.value("changed", json::array());
  if (!changed.empty()) {  // reported first, even when the exporter also raised
    json detail{{"changed", changed}, {"warnings", warnings}};
    if (raised) detail["export"] = export_failure;
    return fail(context, FailureClass::state_changed, std::move(detail));
  }
  if (raised) return fail(context, FailureClass::export_error, export_failure);
  if (!reply.value("wrote_model", false)) {
    return fail(context, FailureClass::export_error,
                json{{"error", "the exporter wrote no model.onnx"}, {"log", reply.value("log", "")}});
  }
  context.record.set_stage_passed(Stage::export_model, json{{"warnings", warnings}});
  return true;
}

}  // namespace nnx
