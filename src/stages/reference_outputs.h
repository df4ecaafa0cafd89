// What parity compares ONNX Runtime with (doc/record-format.md §4 parity; doc/reading-a-failure.md,
// "What the reference is"). Two references, one seam:
//   torch   the PyTorch network of §2 in eval mode under torch.no_grad(), computed by the exporter worker
//           on the exact float32 case tensors and handed back as raw float32 frames (worker/PROTOCOL.md,
//           "reference"); what a run uses, and `execute --reference torch`;
//   native  the C++ float32 forward (model/feedfwd.h); what `execute` uses from the command line (no Python).
// Either way the outputs are float32, one tensor per input, in order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/reference_model.h"
#include "worker/exporter_client.h"
#include "worker/tensor_wire.h"

namespace nnx {

enum class ReferenceKind { torch, native };

std::string_view reference_name(ReferenceKind kind);            // "torch" | "native"
std::optional<ReferenceKind> parse_reference(std::string_view name);
// The reference a front end's `reference` argument names; UsageError naming both choices for anything else.
ReferenceKind reference_named(std::string_view name);

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

// The reference's outputs for `inputs`, in order. torch: asks `worker` (WorkerError when it cannot answer or
// answers with the wrong names or shapes); native: `model.forward`.
std::vector<std::vector<float>> reference_outputs(ReferenceKind kind, const ReferenceModel& model,
                                                  ExporterClient* worker, const std::vector<ReferenceInput>& inputs);

}  // namespace nnx
