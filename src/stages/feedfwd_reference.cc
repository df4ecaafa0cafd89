// The feed-forward net's reference (feedfwd_reference.h).
#include "stages/feedfwd_reference.h"

#include "base/error.h"
#include "base/record_vocabulary.h"
#include "worker/worker_error.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;

// The worker's reference request (worker/PROTOCOL.md, "reference").
json reference_request(const ReferenceModel& model, const std::vector<ReferenceInput>& inputs, OutgoingFrames& frames) {
  json request = worker_network_fields(model, frames);
  json encoded = json::array();
  for (const auto& input : inputs) {
    encoded.push_back(frames.own(Tensor::float32(input.name, input.tensor.shape, input.tensor.values)));
  }
  request[wire::kOp] = wire::kOpReference;
  request[wire::kInputs] = std::move(encoded);
  return request;
}

std::vector<std::vector<float>> torch_outputs(const ReferenceModel& model, ExporterClient& worker,
                                              const std::vector<ReferenceInput>& inputs) {
  OutgoingFrames frames;
  const json request = reference_request(model, inputs, frames);
  WorkerReply reply = worker.reference(request, frames);
  AnswerFrames answer_frames(std::move(reply.frames));
  const auto answered = reply.body.find(wire::kOutputs);
  if (answered == reply.body.end() || !answered->is_array() || answered->size() != inputs.size()) {
    throw WorkerError(WorkerError::Kind::malformed, "the reference answer holds no output per input");
  }
  std::vector<std::vector<float>> outputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const json& out = (*answered)[i];
    if (!out.is_object() || out.value(wire::kName, "") != inputs[i].name) {
      throw WorkerError(WorkerError::Kind::malformed,
                        "reference output " + std::to_string(i) + " is not " + inputs[i].name);
    }
    const Tensor tensor = answer_frames.take(out, "reference output");
    const std::vector<std::int64_t> expected{inputs[i].tensor.shape.at(0), model.output_width()};
    if (tensor.shape != expected) {
      throw WorkerError(WorkerError::Kind::malformed, "reference output " + inputs[i].name + " has the wrong shape");
    }
    outputs.push_back(float32_values(tensor, "reference output " + inputs[i].name));
  }
  return outputs;
}

}  // namespace

json worker_network_fields(const ReferenceModel& model, OutgoingFrames& frames) {
  json parameters = json::array();
  for (const auto& p : model.parameters()) parameters.push_back(frames.own(Tensor::float32(p.name, p.shape, p.values)));
  json config = model.config().to_json();
  config.erase(rf::config_key::kWeights);
  return json{{wire::kModel, std::move(config)}, {wire::kParameters, std::move(parameters)}};
}

std::vector<std::vector<float>> reference_outputs(ReferenceKind kind, const ReferenceModel& model,
                                                  ExporterClient* worker, const std::vector<ReferenceInput>& inputs) {
  std::vector<std::vector<float>> outputs;
  switch (kind) {
    case ReferenceKind::torch:
      if (worker == nullptr) {
        throw WorkerError(WorkerError::Kind::died, "no exporter worker to compute the torch reference");
      }
      return torch_outputs(model, *worker, inputs);
    case ReferenceKind::native:
      for (const auto& input : inputs) outputs.push_back(model.forward(input.tensor.values, input.tensor.shape.at(0)));
      return outputs;
    case ReferenceKind::stored:  // reference_for never gives a feed-forward record this: it stores no outputs
      throw ConformanceError("a feed-forward record stores no reference outputs");
  }
  return outputs;
}

}  // namespace nnx
