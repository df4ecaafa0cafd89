// The feed-forward net's reference provider (parity_kind.h prepare; doc/record-format.md §4 parity, §7):
// PyTorch through the exporter worker (worker/PROTOCOL.md, "reference": the §2 network in eval mode under
// torch.no_grad() on the exact float32 case tensors, raw float32 frames both ways) or the native C++ float32
// forward (model/feedfwd.h), one float32 tensor per input, in order; and the network as the worker protocol
// carries it, shared by the export and the reference requests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/reference_model.h"
#include "stages/reference_kind.h"
#include "worker/exporter_client.h"
#include "worker/tensor_wire.h"

namespace nnx {

struct Float32Tensor {
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

struct ReferenceInput {
  std::string name;  // the input case's name
  Float32Tensor tensor;
};

// The network as the worker protocol carries it, shared by the export and the reference requests
// (worker/PROTOCOL.md): {"model": the config without its weight init, "parameters": [{name, frame}]}, each
// parameter a float32 frame kept by `frames` (worker/tensor_wire.h).
nlohmann::json worker_network_fields(const ReferenceModel& model, OutgoingFrames& frames);

// A feed-forward reference's outputs for `inputs`, in order. torch: asks `worker` (WorkerError when it cannot
// answer or answers with the wrong names or shapes); native: `model.forward`; stored: ConformanceError (a
// feed-forward record stores none; reference_for never chooses it).
std::vector<std::vector<float>> reference_outputs(ReferenceKind kind, const ReferenceModel& model,
                                                  ExporterClient* worker, const std::vector<ReferenceInput>& inputs);

}  // namespace nnx
