// A module profile's given inputs (doc/profile-files.md, "Inputs you give"; doc/record-format.md §10):
// `"data": FOLDER` holding ONNX Runtime's layout, test_data_set_<N>/input_<j>.pb (data_set_folder.h). Each
// data set is one more case expected to match, named data-set-<N> (ModuleSpec::cases() places it). Each file
// gives the input its TensorProto names — bound by name, never by position: a file naming no input, or one the
// spec lacks, or an input twice, is refused naming the spec's inputs — and the spec's other inputs are drawn
// as in every case. A given tensor has its input's dtype, rank and fixed sizes; its symbolic sizes bind the
// case's dims, each one of that dim's values in `dims` (a dim no given tensor binds takes its export value).
// Dims are needed only for inputs that are drawn: a dim `dims` leaves out takes the sizes the data sets give
// it, which every data set must (ModuleSpec::data_dims; the profile then draws no case of its dims).
// A data set holding output_<j>.pb is refused: a module's reference is PyTorch's, computed on the given
// inputs. Everything is read when the profile is read, so each problem is exit 2 before anything runs; the
// export stage reads each file again (reread_data_set_tensor) and refuses one that changed.
#pragma once

#include <string>
#include <vector>

#include "profile/module_spec.h"

namespace nnx {

// Reads the data sets of `data` against `spec` (its inputs and dims already free of problems but those the data
// sets may settle: ModuleSpec::problems(true)) into spec.given, spec.data and the dims left out (spec.dims,
// spec.data_dims); appends every problem ("profile.data: ..."), and then leaves the spec as it was.
void read_given_inputs(const std::string& data, ModuleSpec& spec, std::vector<std::string>& problems);

}  // namespace nnx
