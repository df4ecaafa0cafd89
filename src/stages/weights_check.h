// Whether model.onnx stores the model's weights (doc/reading-a-failure.md, "Reading the triangulation"): every parameter
// of the reference model (name, shape, float32 values, model/reference_model.h) must be found among the
// FLOAT initializers the verified model.onnx holds (external data included), read in C++ with ONNX's own
// schema by the load stage (onnx_file/onnx_model_file.h), which keeps only this verdict: by name, else by equal values in the same or the transposed
// layout (an exporter may rename or transpose a weight). A difference is parity's `weights` blame: an
// exporter fault, whatever the runtime computes.
#pragma once

#include <optional>
#include <string>

#include "model/reference_model.h"
#include "onnx_file/onnx_model_file.h"

namespace nnx {

struct WeightsVerdict {
  std::optional<bool> match;             // nullopt: not checked (load did not read model.onnx)
  std::string problem = "not checked";   // what differs, or why it was not checked; empty when they match
};

WeightsVerdict weights_in_model(const ReferenceModel& model, const OnnxModelFile& onnx_model);

}  // namespace nnx
