#include "stages/reference_outputs.h"

#include "worker/worker_error.h"

namespace nnx {
namespace {

using nlohmann::json;

// The worker's reference request (worker/PROTOCOL.md, "reference").
json reference_request(const ReferenceModel& model, const std::vector<ReferenceInput>& inputs) {
  json encoded = json::array();
  for (const auto& input : inputs) {
    json t = float32_tensor_json(input.tensor.shape, input.tensor.values);
    t["name"] = input.name;
    encoded.push_back(std::move(t));
  }
  json request = worker_network_fields(model);
  request["op"] = "reference";
  request["inputs"] = std::move(encoded);
  return request;
}

std::vector<std::vector<float>> torch_outputs(const ReferenceModel& model, ExporterClient& worker,
                                              const std::vector<ReferenceInput>& inputs) {
  const json reply = worker.reference(reference_request(model, inputs));
  if (!reply.contains("outputs") || !reply["outputs"].is_array() || reply["outputs"].size() != inputs.size()) {
    throw WorkerError(WorkerError::Kind::malformed, "the reference answer holds no output per input");
  }
  std::vector<std::vector<float>> outputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const json& out = reply["outputs"][i];
    if (!out.is_object() || out.value("name", "") != inputs[i].name) {
      throw WorkerError(WorkerError::Kind::malformed,
                        "reference output " + std::to_string(i) + " is not " + inputs[i].name);
    }
    Float32Tensor tensor = float32_tensor_from_json(out, "reference output");
    const std::vector<std::int64_t> expected{inputs[i].tensor.shape.at(0), model.output_width()};
    if (tensor.shape != expected) {
      throw WorkerError(WorkerError::Kind::malformed, "reference output " + inputs[i].name + " has the wrong shape");
    }
    outputs.push_back(std::move(tensor.values));
  }
  return outputs;
}

}  // namespace

json worker_network_fields(const ReferenceModel& model) {
  json parameters = json::array();
  for (const auto& p : model.parameters()) {
    json t = float32_tensor_json(p.shape, p.values);
    t["name"] = p.name;
    parameters.push_back(std::move(t));
  }
  json config = model.config().to_json();
  config.erase("weights");
  return json{{"model", std::move(config)}, {"parameters", std::move(parameters)}};
}

std::string_view reference_name(ReferenceKind kind) { return kind == ReferenceKind::torch ? "torch" : "native"; }

std::optional<ReferenceKind> parse_reference(std::string_view name) {
  if (name == "torch") return ReferenceKind::torch;
  if (name == "native") return ReferenceKind::native;
  return std::nullopt;
}

std::vector<std::vector<float>> reference_outputs(ReferenceKind kind, const ReferenceModel& model,
                                                  ExporterClient* worker, const std::vector<ReferenceInput>& inputs) {
  if (kind == ReferenceKind::torch) {
    if (worker == nullptr) {
      throw WorkerError(WorkerError::Kind::died, "no exporter worker to compute the torch reference");
    }
    return torch_outputs(model, *worker, inputs);
  }
  std::vector<std::vector<float>> outputs;
  for (const auto& input : inputs) outputs.push_back(model.forward(input.tensor.values, input.tensor.shape.at(0)));
  return outputs;
}

}  // namespace nnx
