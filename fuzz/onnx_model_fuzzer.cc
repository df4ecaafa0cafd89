// libFuzzer target: the reader of untrusted model files (src/onnx_file/onnx_model_file.h, read_onnx_model)
// and of ONNX test-data tensors (src/onnx_file/tensor_proto.h, decode_tensor_proto), on any bytes. The same
// bytes are read as a model.onnx (every external-data location names the input itself, so its `offset` and
// `length` reach real bytes) and as a TensorProto .pb file.
//
// For every input:
//  * read_onnx_model returns or throws ConformanceError with a message (anything else is a finding);
//  * what it returns is coherent: the locations sorted and unique, every external initializer's location
//    among them, a FLOAT initializer holding exactly the product of its dims values, every dim >= 0;
//  * decode_tensor_proto (limit 1 MiB) returns or throws ConformanceError starting with its `what`;
//  * a decoded tensor is consistent (bytes = dtype size * elements, within the limit) and survives
//    encode_tensor_proto -> decode_tensor_proto unchanged.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "base/error.h"
#include "onnx_file/onnx_model_file.h"
#include "onnx_file/tensor_proto.h"

namespace {

constexpr std::uint64_t kMaxTensorBytes = std::uint64_t{1} << 20;

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "onnx_model_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}

void check_model(std::span<const std::byte> bytes) {
  nnx::OnnxModelFile model;
  try {
    model = nnx::read_onnx_model(bytes, [bytes](const std::string&) { return std::optional(bytes); });
  } catch (const nnx::ConformanceError& e) {
    if (std::string(e.what()).empty()) finding("read_onnx_model refused without a message");
    return;
  }
  const auto& locations = model.external_locations;
  if (!std::is_sorted(locations.begin(), locations.end()) ||
      std::adjacent_find(locations.begin(), locations.end()) != locations.end()) {
    finding("external locations not sorted and unique");
  }
  for (const auto& init : model.initializers) {
    if (init.external_location && !std::binary_search(locations.begin(), locations.end(), *init.external_location)) {
      finding("an external initializer's location is not listed", init.name);
    }
    std::uint64_t count = 1;
    for (std::int64_t d : init.dims) {
      if (d < 0) finding("an initializer kept a negative dim", init.name);
      count *= static_cast<std::uint64_t>(d);
    }
    if (init.data_type == nnx::kOnnxFloat && init.values.size() != count) {
      finding("a FLOAT initializer's values do not match its dims", init.name);
    }
  }
}

void check_tensor(std::span<const std::byte> bytes) {
  nnx::Tensor tensor;
  try {
    tensor = nnx::decode_tensor_proto(bytes, "fuzz.pb", kMaxTensorBytes);
  } catch (const nnx::ConformanceError& e) {
    if (std::string(e.what()).rfind("fuzz.pb", 0) != 0) finding("a refusal does not start with its what", e.what());
    return;
  }
  if (!tensor.consistent()) finding("decoded tensor is not consistent", tensor.name);
  if (tensor.bytes.size() > kMaxTensorBytes) finding("decoded tensor exceeds the limit", tensor.name);
  const std::string again = nnx::encode_tensor_proto(tensor);
  const nnx::Tensor back = nnx::decode_tensor_proto(std::as_bytes(std::span(again)), "again", kMaxTensorBytes);
  if (back.name != tensor.name || back.dtype != tensor.dtype || back.shape != tensor.shape ||
      back.bytes != tensor.bytes) {
    finding("encode -> decode changed the tensor", tensor.name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  check_model(bytes);
  check_tensor(bytes);
  return 0;
}
