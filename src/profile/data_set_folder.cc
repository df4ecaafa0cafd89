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

void bind_data_set_tensor(const InputSpec& in, DType dtype, const std::vector<std::int64_t>& shape,
                          const std::string& where,
                          const std::vector<std::pair<std::string, std::vector<std::int64_t>>>* allowed,
                          std::map<std::string, std::int64_t>& dims, std::vector<std::string>& problems) {
  if (dtype != in.dtype) {
    problems.push_back(where + " is " + std::string(dtype_name(dtype)) + ", input " + in.name + " is " +
                       std::string(dtype_name(in.dtype)));
  }
  if (shape.size() != in.shape.size()) {
    problems.push_back(where + " has rank " + std::to_string(shape.size()) + ", input " + in.name + " rank " +
                       std::to_string(in.shape.size()));
    return;
  }
  for (std::size_t axis = 0; axis < in.shape.size(); ++axis) {
    const DimSize& d = in.shape[axis];
    const std::int64_t size = shape[axis];
    if (d.fixed) {
      if (*d.fixed != size) {
        problems.push_back(where + " has size " + std::to_string(size) + " on axis " + std::to_string(axis) +
                           ", input " + in.name + " the fixed size " + std::to_string(*d.fixed));
      }
      continue;
    }
    if (allowed) {
      const auto values = std::find_if(allowed->begin(), allowed->end(), [&](const auto& e) { return e.first == d.symbol; });
      if (values != allowed->end() && std::find(values->second.begin(), values->second.end(), size) == values->second.end()) {
        problems.push_back(where + " gives dim " + d.symbol + " the size " + std::to_string(size) + ", not one of dims." +
                           d.symbol + " " + nlohmann::json(values->second).dump() + ": add it there");
        continue;
      }
    }
    const auto [it, added] = dims.emplace(d.symbol, size);
    if (!added && it->second != size) {
      problems.push_back(where + " gives dim " + d.symbol + " the size " + std::to_string(size) +
                         ", another tensor of its data set " + std::to_string(it->second));
    }
  }
}

}  // namespace nnx
