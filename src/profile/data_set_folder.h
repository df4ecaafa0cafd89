// ONNX Runtime's onnx_test_runner layout of data sets, as a profile's `"data": FOLDER` names them: numbered
// folders `test_data_set_<N>/` holding `input_<j>.pb` and `output_<j>.pb`, TensorProto files
// (onnx_file/tensor_proto.h). The one reading of that layout, and the one check of a data-set tensor against
// the input it is bound to, shared by an ONNX-file profile's data sets (onnx_file_spec.h) and a module
// profile's given inputs (given_inputs.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/tensor.h"
#include "profile/module_spec.h"

namespace nnx {

// Every test_data_set_<N> folder directly under `data` (N of at most 9 digits), in N's order.
std::vector<std::pair<std::uint64_t, std::filesystem::path>> data_set_folders(const std::filesystem::path& data);

// The numbered files `<prefix>_<j>.pb` of a data set folder, j from 0 until the first one missing.
std::vector<std::filesystem::path> numbered_files(const std::filesystem::path& folder, const std::string& prefix);

// One data set's .pb file decoded, its values at most module_limits::kMaxTensorBytes (the file a MiB more,
// for the TensorProto's framing): the one reading of a data-set tensor the profile check and the stages
// share. An unreadable file is an Error of `kind`; bytes that do not decode a ConformanceError naming the file.
Tensor read_data_set_tensor(const std::filesystem::path& file, ErrorKind kind);

// The data-set tensor at `file` read again when a stage uses it, named `name`: a ConformanceError naming the
// file when it no longer has the dtype and shape the profile read from it.
Tensor reread_data_set_tensor(const std::filesystem::path& file, DType dtype, const std::vector<std::int64_t>& shape,
                              const std::string& name);

// A data-set tensor of `dtype` and `shape` against the input `in` it is bound to: its dtype, rank and fixed
// sizes must be the input's; each symbolic size is bound into `dims` (one value per dim within a data set)
// and, when `allowed` is given (a module profile's dims) and lists that dim, must be one of its values there (a
// dim it does not list takes any size: the data sets give its values, given_inputs.h). Appends "<where> ..."
// problems naming the input.
void bind_data_set_tensor(const InputSpec& in, DType dtype, const std::vector<std::int64_t>& shape,
                          const std::string& where,
                          const std::vector<std::pair<std::string, std::vector<std::int64_t>>>* allowed,
                          std::map<std::string, std::int64_t>& dims, std::vector<std::string>& problems);

}  // namespace nnx
