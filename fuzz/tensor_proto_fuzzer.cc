// libFuzzer target: the stored-tensor reader (src/onnx_file/tensor_proto.h, decode_tensor_proto), as a module
// record's stored inputs and oracle outputs are read (stages/module_tensors.cc, stored_tensor: the verified
// file's bytes, the record's relative path as `what`, module_limits::kMaxTensorBytes as the limit), on any
// bytes. onnx_model_fuzzer reads the same bytes as a model first, at one fixed limit; here every input is a
// TensorProto file and its last byte chooses the limit (under 64: that many times 4 bytes, 0..252; else the
// module limit of 64 MiB), so the limit check before allocation is reached from both sides.
//
// For every input:
//  * decode_tensor_proto returns or throws ConformanceError whose message starts with the file's name (its
//    `what`); nothing else escapes;
//  * a decoded tensor is consistent (bytes = dtype size * elements) and within the limit;
//  * it survives encode_tensor_proto -> decode_tensor_proto unchanged (name, dtype, shape, bytes), at the same
//    limit.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "base/error.h"
#include "onnx_file/tensor_proto.h"
#include "profile/module_spec.h"

namespace {

constexpr const char* kWhat = "cases/batch-1/outputs/y.pb";

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "tensor_proto_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t chooser = size == 0 ? 255 : data[size - 1];
  const std::uint64_t limit = chooser >= 64 ? nnx::module_limits::kMaxTensorBytes : std::uint64_t{chooser} * 4;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  nnx::Tensor tensor;
  try {
    tensor = nnx::decode_tensor_proto(bytes, kWhat, limit);
  } catch (const nnx::ConformanceError& e) {
    if (std::string(e.what()).rfind(kWhat, 0) != 0) finding("a refusal does not start with its what", e.what());
    return 0;
  }
  if (!tensor.consistent()) finding("a decoded tensor is not consistent", tensor.name);
  if (tensor.bytes.size() > limit) finding("a decoded tensor exceeds the limit", tensor.name);
  const std::string again = nnx::encode_tensor_proto(tensor);
  nnx::Tensor back;
  try {
    back = nnx::decode_tensor_proto(std::as_bytes(std::span(again)), "again", limit);
  } catch (const nnx::ConformanceError& e) {
    finding("a decoded tensor written again is refused", e.what());
  }
  if (back.name != tensor.name || back.dtype != tensor.dtype || back.shape != tensor.shape ||
      back.bytes != tensor.bytes) {
    finding("encode -> decode changed the tensor", tensor.name);
  }
  return 0;
}
