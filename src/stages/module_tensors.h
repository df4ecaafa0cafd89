// A module profile's case tensors (doc/record-format.md §10): drawn from each case's seeds, written into the
// profile folder in ONNX's test-data layout (artifacts/layout.h) as TensorProto files, and read back one at a
// time, checked against the record's hashes (stored_tensors.h), so that parity compares what the record hashes.
//
// Draws: model/input_draw.h, the one rule for every kind (an input drawn from its case's seed and its index,
// module_spec.h input_seed).
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "profile/module_spec.h"
#include "record/record.h"
#include "stages/stored_tensors.h"

namespace nnx {

// Every input of `c`, named and typed by the spec: drawn, but for those its data set gives (given_inputs.h),
// which are read again from their files (ConformanceError naming a file that changed since the profile read it).
std::vector<Tensor> draw_case_inputs(const ModuleSpec& spec, const ModuleCase& c);

// Writes `tensor` as TensorProto bytes at <folder>/<relative> (atomically; folders made as needed).
void write_stored_tensor(const std::filesystem::path& folder, const std::string& relative, const Tensor& tensor);

// Removes from the profile folder `folder` every stored tensor (layout.h stored_tensor_role) that `record`
// does not name (a case's input, output or oracle file; every one when there is no record), and the folders
// that leaves empty; never follows a link, never throws (what cannot be removed stays, and verify names it).
void discard_unnamed_stored_tensors(const std::filesystem::path& folder,
                                    std::optional<std::reference_wrapper<const Record>> record);

// The stored tensor at `relative`, read and checked (stored_tensors.h); ConformanceError when it is not
// there or changed, does not parse, or differs in name, dtype or shape from what the record says.
Tensor stored_tensor(const StoredTensors& stored, const CaseTensor& expected, const std::string& relative);

// The stored float64 oracle of the output `expected` at `relative`: float64 with the output's name, of any shape
// (the output's; for an output that compares exactly, base/exact_compare.h, the scores its index was chosen
// from, the output's shape + [candidates]; for a shape that depends on the values, such as a detector's boxes,
// whatever the float64 copy found: parity measures against it only where it fits); ConformanceError otherwise,
// as stored_tensor.
Tensor stored_oracle(const StoredTensors& stored, const CaseTensor& expected, const std::string& relative);

}  // namespace nnx
