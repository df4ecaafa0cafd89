// The export stage (doc/record-format.md §4): the worker puts the model in its mixed mode with gradients,
// snapshots it, calls the profile's exporter with the exact arguments of §4 and compares the snapshot.
// Failures: state-changed (reported first), export-error (the exporter raised, wrote no model.onnx, or the
// worker could not answer). model_state is recorded whenever the exporter was called. A module profile's
// export is module_export.cc's, an ONNX-file profile's the import (onnx_file_stages.h).
#include <string>
#include <system_error>
#include <vector>

#include "artifacts/layout.h"
#include "model/feedfwd.h"
#include "record/record.h"
#include "stages/module_stages.h"
#include "stages/onnx_file_stages.h"
#include "stages/reference_outputs.h"
#include "stages/stages.h"
#include "worker/tensor_wire.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;
namespace detail_key = rf::detail_key;

// The worker's export request (worker/PROTOCOL.md, "export").
json export_request(const StageContext& context, OutgoingFrames& frames) {
  const Profile& profile = *context.profile;
  const std::vector<std::int64_t> example_shape = {profile.export_batch, profile.model.input_dim};
  json request = worker_network_fields(*context.model, frames);  // the model the profile's config built
  const std::string output_dir = std::filesystem::absolute(profile_folder(context.root, profile.name)).string();
  request.update(json{{wire::kOp, wire::kOpExport},
                      {wire::kExporter, profile.exporter},
                      {wire::kOptions, profile.exporter_options()},
                      {wire::kExampleInput,
                       frames.own(Tensor::float32("example", example_shape, draw_input(example_shape, 7)))},
                      {wire::kOutputDir, output_dir},
                      {wire::kModelFile, kModelFile}});
  return request;
}

}  // namespace

bool run_export_stage(StageContext& context) {
  switch (context.profile->kind()) {
    case ModelKind::module: return run_module_export_stage(context);
    case ModelKind::onnx_file: return run_onnx_import_stage(context);  // the user's own file, imported
    case ModelKind::feed_forward: break;
  }
  const auto folder = profile_folder(context.root, context.profile->name);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) {
    return stage_failed(context, FailureClass::export_error,
                json{{detail_key::kError, "cannot create " + folder.string() + ": " + ec.message()},
                     {detail_key::kLog, ""}});
  }
  json reply;
  try {
    OutgoingFrames frames;
    const json request = export_request(context, frames);
    reply = context.exporter->export_model(request, frames).body;
  } catch (const WorkerError& e) {
    json detail{{detail_key::kError, std::string("exporter worker: ") + e.what()},
                {detail_key::kLog, context.exporter->log_tail(20)}};
    context.exporter->stop();
    return stage_failed(context, FailureClass::export_error, std::move(detail));
  }
  const json warnings = reply.value(wire::kWarnings, json::array());
  const bool raised = reply.contains(wire::kException) && !reply[wire::kException].is_null();
  const json export_failure{{detail_key::kError, raised ? reply[wire::kException] : json()},
                            {detail_key::kLog, reply.value(wire::kLog, "")}};
  context.record.model_state = reply.at(wire::kModelState);  // the exporter was called (§4)
  const json changed = reply.value(wire::kChanged, json::array());
  if (!changed.empty()) {  // reported first, even when the exporter also raised
    json detail{{detail_key::kChanged, changed}, {detail_key::kWarnings, warnings}};
    if (raised) detail[detail_key::kExport] = export_failure;
    return stage_failed(context, FailureClass::state_changed, std::move(detail));
  }
  if (raised) return stage_failed(context, FailureClass::export_error, export_failure);
  if (!reply.value(wire::kWroteModel, false)) {
    return stage_failed(context, FailureClass::export_error,
                json{{detail_key::kError, "the exporter wrote no model.onnx"},
                     {detail_key::kLog, reply.value(wire::kLog, "")}});
  }
  context.record.set_stage_passed(Stage::export_model, json{{detail_key::kWarnings, warnings}});
  return true;
}

}  // namespace nnx
