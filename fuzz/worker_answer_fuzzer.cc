// libFuzzer target: the worker's answers as the core reads them (src/worker/: worker_answer.h, the float32
// tensors of tensor_wire.h, the typed tensors of typed_tensor_wire.h), on any bytes: the input is one
// answer line from a worker that may be broken or hostile.
//
// For every input:
//  * parse_worker_answer returns an object with a boolean "ok" or throws WorkerError(malformed) whose
//    message starts "malformed response to 'fuzz'" (anything else is a finding); an accepted answer can be
//    dumped (its nesting is bounded, so the client's error text of a refused answer cannot overflow);
//  * every object inside the answer (any depth) is read as a float32 tensor and as a typed tensor (limit
//    1 MiB): each returns or throws WorkerError(malformed) naming its `what`; a float32 tensor holds the
//    product of its shape values, a typed tensor is consistent, and both survive being written for the
//    wire and read back bit for bit.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "worker/tensor_wire.h"
#include "worker/typed_tensor_wire.h"
#include "worker/worker_answer.h"
#include "worker/worker_error.h"

namespace {

constexpr std::uint64_t kMaxTensorBytes = std::uint64_t{1} << 20;

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "worker_answer_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}

void expect_malformed(const nnx::WorkerError& e, std::string_view what) {
  if (e.kind() != nnx::WorkerError::Kind::malformed) finding("a refusal is not `malformed`", e.what());
  if (std::string_view(e.what()).substr(0, what.size()) != what) finding("a refusal does not name its what", e.what());
}

void check_float32(const nlohmann::json& value) {
  nnx::Float32Tensor tensor;
  try {
    tensor = nnx::float32_tensor_from_json(value, "float32 tensor");
  } catch (const nnx::WorkerError& e) {
    return expect_malformed(e, "float32 tensor: ");
  }
  std::size_t count = 1;
  for (std::int64_t d : tensor.shape) count *= static_cast<std::size_t>(d);
  if (tensor.values.size() != count) finding("float32 values do not match the shape");
  const auto back = nnx::float32_tensor_from_json(nnx::float32_tensor_json(tensor.shape, tensor.values), "again");
  if (back.shape != tensor.shape || back.values.size() != tensor.values.size() ||
      (count && std::memcmp(back.values.data(), tensor.values.data(), count * sizeof(float)) != 0)) {
    finding("a float32 tensor changed on the wire's round trip");
  }
}

void check_typed(const nlohmann::json& value) {
  nnx::Tensor tensor;
  try {
    tensor = nnx::tensor_from_json(value, "typed tensor", kMaxTensorBytes);
  } catch (const nnx::WorkerError& e) {
    return expect_malformed(e, "typed tensor: ");
  }
  if (!tensor.consistent() || tensor.bytes.size() > kMaxTensorBytes) finding("a typed tensor is not consistent");
  const nnx::Tensor back = nnx::tensor_from_json(nnx::tensor_json(tensor), "again", kMaxTensorBytes);
  if (back.name != tensor.name || back.dtype != tensor.dtype || back.shape != tensor.shape ||
      back.bytes != tensor.bytes) {
    finding("a typed tensor changed on the wire's round trip");
  }
}

// Every object and array member of the answer, without recursion (the answer's depth is bounded anyway).
void check_tensors(const nlohmann::json& answer) {
  std::vector<const nlohmann::json*> todo{&answer};
  while (!todo.empty()) {
    const nlohmann::json* value = todo.back();
    todo.pop_back();
    if (value->is_object()) {
      check_float32(*value);
      check_typed(*value);
    }
    if (value->is_structured()) {
      for (const auto& member : *value) todo.push_back(&member);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  nlohmann::json answer;
  try {
    answer = nnx::parse_worker_answer(line, "'fuzz'");
  } catch (const nnx::WorkerError& e) {
    expect_malformed(e, "malformed response to 'fuzz' (");
    return 0;
  }
  if (!answer.is_object() || !answer["ok"].is_boolean()) finding("an accepted answer has no boolean ok");
  if (answer.dump().empty()) finding("an accepted answer cannot be dumped");
  check_tensors(answer);
  return 0;
}
