// The export stage (doc/record-format.md §4): the worker puts the model in its mixed mode with gradients,
// snapshots it, calls the profile's exporter with the exact arguments of §4 and compares the snapshot.
// Failures: state-changed (reported first), export-error (the exporter raised, wrote no model.onnx, or the
// worker could not answer). model_state is recorded whenever the exporter was called.
#include <openssl/evp.h>

#include <string>
#include <system_error>
#include <vector>

#include "artifacts/layout.h"
#include "model/feedfwd.h"
#include "record/record.h"
#include "stages/stages.h"

namespace nnx {
namespace {

using nlohmann::json;

std::string base64(const void* data, std::size_t size) {
  std::string out(4 * ((size + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                static_cast<const unsigned char*>(data), static_cast<int>(size));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

json tensor_json(const std::vector<std::int64_t>& shape, const std::vector<float>& values) {
  return json{{"shape", shape}, {"data", base64(values.data(), values.size() * sizeof(float))}};
}

// The worker's export request (worker/PROTOCOL.md, "export").
json export_request(const StageContext& context) {
  const Profile& profile = *context.profile;
  json parameters = json::array();
  for (const auto& p : context.model.parameters()) {
    json t = tensor_json(p.shape, p.values);
    t["name"] = p.name;
    parameters.push_back(t);
  }
  const std::vector<std::int64_t> example_shape = {profile.export_batch, profile.model.input_dim};
  json model = profile.model.to_json();
  model.erase("weights");
  return json{{"op", "export"},
              {"exporter", profile.exporter},
              {"options", profile.exporter_options()},
              {"model", model},
              {"parameters", parameters},
              {"example_input", tensor_json(example_shape, draw_input(example_shape, 7))},
              {"output_dir", std::filesystem::absolute(profile_folder(context.root, profile.name)).string()},
              {"model_file", kModelFile}};
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
  if (reply.contains("exception") && !reply["exception"].is_null()) {
    return fail(context, FailureClass::export_error, json{{"error", reply["exception"]}, {"log", reply.value("log", "")}});
  }
  context.record.model_state = reply.at("model_state");
  const json changed = reply.value("changed", json::array());
  if (!changed.empty()) {
    return fail(context, FailureClass::state_changed, json{{"changed", changed}, {"warnings", warnings}});
  }
  if (!reply.value("wrote_model", false)) {
    return fail(context, FailureClass::export_error,
                json{{"error", "the exporter wrote no model.onnx"}, {"log", reply.value("log", "")}});
  }
  context.record.set_stage_passed(Stage::export_model, json{{"warnings", warnings}});
  return true;
}

}  // namespace nnx
