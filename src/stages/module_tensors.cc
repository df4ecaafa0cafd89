// A module profile's case tensors: drawn, written and read back (module_tensors.h).
#include "stages/module_tensors.h"

#include <cstring>

#include "base/atomic_file.h"
#include "base/error.h"
#include "model/feedfwd.h"
#include "model/torch_random.h"
#include "onnx_file/tensor_proto.h"
#include "profile/data_set_folder.h"

namespace nnx {
namespace {

template <typename T>
void put(std::vector<std::byte>& bytes, std::size_t index, T value) {
  std::memcpy(bytes.data() + index * sizeof(T), &value, sizeof(T));
}

// A drawn float32 value as an element of a floating dtype (half precisions rounded to nearest, ties to even).
void put_float(std::vector<std::byte>& bytes, std::size_t index, DType dtype, float value) {
  switch (dtype) {
    case DType::float32: return put(bytes, index, value);
    case DType::float64: return put(bytes, index, static_cast<double>(value));
    case DType::float16: return put(bytes, index, float16_bits(value));
    case DType::bfloat16: return put(bytes, index, bfloat16_bits(value));
    case DType::int64:
    case DType::int32:
    case DType::int8:
    case DType::uint8:
    case DType::boolean: break;
  }
  throw ConformanceError(std::string("a ") + std::string(dtype_name(dtype)) + " input is not drawn as a float");
}

// A drawn integer (within the dtype: the range was checked against it) as an element of an integer or bool dtype.
void put_integer(std::vector<std::byte>& bytes, std::size_t index, DType dtype, std::int64_t value) {
  switch (dtype) {
    case DType::int64: return put(bytes, index, value);
    case DType::int32: return put(bytes, index, static_cast<std::int32_t>(value));
    case DType::int8: return put(bytes, index, static_cast<std::int8_t>(value));
    case DType::uint8: return put(bytes, index, static_cast<std::uint8_t>(value));
    case DType::boolean: return put(bytes, index, static_cast<std::uint8_t>(value != 0));
    case DType::float32:
    case DType::float64:
    case DType::float16:
    case DType::bfloat16: break;
  }
  throw ConformanceError(std::string("a ") + std::string(dtype_name(dtype)) + " input is not drawn as an integer");
}

Tensor draw_input(const InputSpec& spec, const std::vector<std::int64_t>& shape, std::uint64_t seed) {
  Tensor t{spec.name, spec.dtype, shape, {}};
  const auto count = static_cast<std::size_t>(t.element_count().value_or(0));
  t.bytes.resize(count * dtype_size(spec.dtype));
  if (!integer_input_bounds(spec.dtype) && spec.dtype != DType::boolean) {  // a float: N(0, 1) in float32 first
    std::vector<float> values(count);
    TorchGenerator(seed).randn(values);
    for (std::size_t i = 0; i < count; ++i) put_float(t.bytes, i, spec.dtype, values[i]);
    return t;
  }
  // An integer from its range, bool from [0, 2).
  const auto [low, high] = spec.range.value_or(std::make_pair(std::int64_t{0}, std::int64_t{2}));
  const auto span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  Mt19937 engine(seed);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t word = (static_cast<std::uint64_t>(engine()) << 32) | engine();
    put_integer(t.bytes, i, spec.dtype, low + static_cast<std::int64_t>(word % span));
  }
  return t;
}

}  // namespace

std::vector<Tensor> draw_case_inputs(const ModuleSpec& spec, const ModuleCase& c) {
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    inputs.push_back(draw_input(spec.inputs[i], c.input_shapes[i], input_seed(c.seed, i)));
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
