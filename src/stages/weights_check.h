// Whether model.onnx stores the model's weights (README.md, "Reading the triangulation"): every parameter
// of the reference model (name, shape, float32 values, model/reference_model.h) must be found among the
// FLOAT initializers the verified model.onnx holds (external data included), read in C++ with ONNX's own
// schema (onnx_file/onnx_model_file.h): by name, else by equal values in the same or the transposed
// layout (an exporter may rename or transpose a weight). A difference is parity's `weights` blame: an
// exporter fault, whatever the runtime computes.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/reference_model.h"
#include "record/record.h"

namespace nnx {

struct WeightsVerdict {
  std::optional<bool> match;  // nullopt: not checked (no verified model bytes, or model.onnx unreadable)
  std::string problem;        // what differs, or why it was not checked; empty when they match
};

// `files`: the verified bytes of the record's artifacts by normalised path (the load stage's).
WeightsVerdict weights_in_model(const ReferenceModel& model, const Record& record,
                                const std::map<std::string, std::vector<std::byte>>& files);

}  // namespace nnx
