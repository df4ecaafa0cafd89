// One tensor file read with one copy of its values (stages/localisation.h reads PyTorch's intermediate
// values so, one at a time): the TensorProto's fields are read as they come from the file and its raw_data
// straight into the tensor's bytes, never the whole file, a parsed message and the tensor at once. A file whose
// values are not in raw_data (a typed field), or any field this reader does not know, is read whole and decoded
// by tensor_proto.h's `decode_tensor_proto` instead; so are its checks (dtype, dims, sizes against `max_bytes`,
// before anything is allocated). ConformanceError, its message starting with `what`, for what it refuses.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/tensor.h"

namespace nnx {

Tensor read_tensor_file(const std::filesystem::path& path, const std::string& what, std::uint64_t max_bytes);

}  // namespace nnx
