// The built-in network's part of a localisation (module_localisation.h dispatches to it; doc/localisation.md,
// "The built-in network"): its case's input drawn from the case's shape and seed under the exporter's input
// name, the reference's output for it (PyTorch through the worker's `reference`; the native forward when
// execute chose it, as a matrix cell does), and the worker's `reference_intermediates`
// request: the network as `reference` carries it, that input, the record's exporter and the options its
// export was made with (so a dynamo export's FX names are the graph's).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "stages/stage_context.h"
#include "worker/tensor_wire.h"

namespace nnx {

// The case's graph input and the reference's output for it (WorkerError when the worker cannot answer).
void feedfwd_case_tensors(StageContext& context, const RecordCase& c, std::vector<Tensor>& inputs,
                          std::vector<Tensor>& references);

nlohmann::json feedfwd_intermediates_request(const StageContext& context, const std::vector<Tensor>& inputs,
                                             OutgoingFrames& frames);

}  // namespace nnx
