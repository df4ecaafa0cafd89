#include "stages/reference_outputs.h"

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

std::string_view reference_name(ReferenceKind kind) {
  switch (kind) {
    case ReferenceKind::torch: return rf::kReferenceTorch;
    case ReferenceKind::native: return rf::kReferenceNative;
    case ReferenceKind::stored: return rf::kReferenceStored;
  }
  return rf::kReferenceNative;  // unreachable: every kind is named above
}

std::optional<ReferenceKind> parse_reference(std::string_view name) {
  for (ReferenceKind kind : {ReferenceKind::torch, ReferenceKind::native, ReferenceKind::stored}) {
    if (name == reference_name(kind)) return kind;
  }
  return std::nullopt;
}

ReferenceKind reference_named(std::string_view name) {
  if (const auto kind = parse_reference(name)) return *kind;
  throw UsageError("reference must be \"" + std::string(rf::kReferenceTorch) + "\", \"" +
                   std::string(rf::kReferenceNative) + "\" or \"" + std::string(rf::kReferenceStored) +
                   "\", not \"" + std::string(name) + "\"");
}

ReferenceKind reference_for(RecordReference record, std::optional<ReferenceKind> asked, FrontEnd front_end) {
  switch (record) {
    case RecordReference::module_outputs:
      return asked == ReferenceKind::torch ? ReferenceKind::torch : ReferenceKind::stored;
    case RecordReference::feed_forward_network:
      if (asked == ReferenceKind::stored) {
        throw UsageError("a feed-forward record stores no reference outputs: its reference is \"" +
                         std::string(rf::kReferenceNative) + "\" (the C++ forward) or \"" +
                         std::string(rf::kReferenceTorch) + "\" (PyTorch)");
      }
      if (asked) return *asked;
      return front_end == FrontEnd::python ? ReferenceKind::torch : ReferenceKind::native;
  }
  return ReferenceKind::stored;  // unreachable: every record is named above
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
