// A module profile's case tensors: drawn, written and read back (module_tensors.h).
#include "stages/module_tensors.h"

#include "base/atomic_file.h"
#include "base/error.h"
#include "model/feedfwd.h"
#include "model/input_draw.h"
#include "onnx_file/tensor_proto.h"
#include "profile/data_set_folder.h"

namespace nnx {

std::vector<Tensor> draw_case_inputs(const ModuleSpec& spec, const ModuleCase& c) {
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    const InputSpec& in = spec.inputs[i];
    inputs.push_back(draw_input(in.name, in.dtype, c.input_shapes[i], input_seed(c.seed, i), in.range));
  }
  if (c.data_set) {  // the inputs its data set gives, read again (a file that changed is refused)
    for (const GivenInput& given : spec.given.at(*c.data_set).inputs) {
      inputs[given.input] = reread_data_set_tensor(given.source, given.dtype, given.shape, spec.inputs[given.input].name);
    }
  }
  return inputs;
}

void write_stored_tensor(const std::filesystem::path& folder, const std::string& relative, const Tensor& tensor) {
  const auto path = folder / relative;
  std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, encode_tensor_proto(tensor));
}

Tensor stored_oracle(const std::map<std::string, std::vector<std::byte>>& verified, const CaseTensor& expected,
                     const std::string& relative) {
  CaseTensor as_oracle = expected;
  as_oracle.dtype = std::string(dtype_name(DType::float64));
  const auto it = verified.find(relative);
  if (it != verified.end()) {  // any shape: its parity decides whether it fits (a data-dependent shape need not)
    as_oracle.shape = decode_tensor_proto(it->second, relative, module_limits::kMaxTensorBytes).shape;
  }
  return stored_tensor(verified, as_oracle, relative);
}

Tensor stored_tensor(const std::map<std::string, std::vector<std::byte>>& verified, const CaseTensor& expected,
                     const std::string& relative) {
  const auto it = verified.find(relative);
  if (it == verified.end()) throw ConformanceError("the stored tensor " + relative + " is not among the verified files");
  Tensor t = decode_tensor_proto(it->second, relative, module_limits::kMaxTensorBytes);
  if (t.name != expected.name || dtype_name(t.dtype) != expected.dtype || t.shape != expected.shape) {
    throw ConformanceError("the stored tensor " + relative + " is " + t.name + " " + std::string(dtype_name(t.dtype)) +
                           " " + shape_text(t.shape) + ", not the record's " + expected.name + " " + expected.dtype +
                           " " + shape_text(expected.shape));
  }
  return t;
}

}  // namespace nnx
