// A departing value's node re-run on PyTorch's own inputs, and the repro it leaves (doc/localisation.md,
// "Introduces or carries" and "The repro").
//
// The cut starts with the node that writes the value and grows only where needed: an input that is neither a
// graph input (the case's tensor), an initializer (copied into the cut) nor a value PyTorch gave (its
// tensor) brings in the node that writes it, up to kMaxCutNodes nodes. The cut (onnx_file/graph_outline.h
// sub_model) runs in a session at the level the value departed at, on PyTorch's tensors: when its output
// still departs from PyTorch's (value_departure.h), the cut introduces the error; otherwise it only carries
// one from above.
//
// `write_repro` writes the cut as a model of the "your own ONNX file" kind with its data set, in ONNX's
// test-data layout: <folder>/model.onnx, <folder>/test_data_set_0/input_<j>.pb (PyTorch's inputs, in the
// cut's input order) and output_0.pb (PyTorch's value: the expected output), and
// <folder>/runtime_data_set_0/output_0.pb (what the runtime gave on the cut). It returns the files written,
// relative to the folder. ConformanceError when a file cannot be written.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "stages/localisation_internal.h"

namespace nnx::localisation {

inline constexpr std::size_t kMaxCutNodes = 32;

struct Rerun {
  std::vector<std::size_t> nodes;  // the cut's nodes, in graph order
  std::vector<Tensor> inputs;      // what it was fed, in its input order
  Tensor expected;                 // PyTorch's value
  Tensor actual;                   // the runtime's on the cut
  ValueDeparture departure;
  std::string model;               // the cut's bytes
  std::string failure;             // why it could not be re-run ("" when it was)
  bool introduces() const { return failure.empty() && departure.departs; }
  nlohmann::json to_json(const GraphOutline& outline) const;
};

Rerun rerun_on_torch_inputs(const Subject& subject, const Alignment& alignment, const ReferenceValues& torch,
                            const AlignedValue& value, const std::string& level);

std::vector<std::string> write_repro(const std::filesystem::path& folder, const Rerun& rerun);

}  // namespace nnx::localisation
