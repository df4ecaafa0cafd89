// ONNX Runtime's data-set layout read (data_set_folder.h).
#include "profile/data_set_folder.h"

#include <algorithm>
#include <regex>
#include <span>

#include <nlohmann/json.hpp>

#include "base/file_bytes.h"
#include "onnx_file/tensor_proto.h"
#include "profile/module_spec.h"

namespace nnx {

namespace fs = std::filesystem;

std::vector<std::pair<std::uint64_t, fs::path>> data_set_folders(const fs::path& data) {
  static const std::regex kName("test_data_set_([0-9]{1,9})");
  std::vector<std::pair<std::uint64_t, fs::path>> out;
  for (const auto& entry : fs::directory_iterator(data)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && std::regex_match(name, m, kName)) out.emplace_back(std::stoull(m[1].str()), entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> numbered_files(const fs::path& folder, const std::string& prefix) {
  std::vector<fs::path> out;
  for (std::size_t j = 0;; ++j) {
    const fs::path file = folder / (prefix + "_" + std::to_string(j) + ".pb");
    if (!fs::exists(file)) return out;
    out.push_back(file);
  }
}

Tensor read_data_set_tensor(const fs::path& file, ErrorKind kind) {
  const std::string bytes = read_file_bytes(file, module_limits::kMaxTensorBytes + (1 << 20), "a stored tensor's limit", kind);
  return decode_tensor_proto(std::as_bytes(std::span(bytes.data(), bytes.size())), file.string(),
                             module_limits::kMaxTensorBytes);
}

Tensor reread_data_set_tensor(const fs::path& file, DType dtype, const std::vector<std::int64_t>& shape,
                              const std::string& name) {
  Tensor tensor = read_data_set_tensor(file, ErrorKind::unreadable);
  if (tensor.dtype != dtype || tensor.shape != shape) {
    throw ConformanceError(file.string() + " changed since the profile was read (now " +
                           std::string(dtype_name(tensor.dtype)) + " " + nlohmann::json(tensor.shape).dump() + ")");
  }
  tensor.name = name;
  return tensor;
}

}  // namespace nnx
