// tensor_wire.cc — tensors as frame references in the worker protocol; contract in tensor_wire.h.
#include "worker/tensor_wire.h"

#include <cstring>

#include "base/error.h"
#include "worker/worker_error.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

namespace wire = worker_protocol;

[[noreturn]] void refuse_malformed(const std::string& what, const std::string& why) {
  throw WorkerError(WorkerError::Kind::malformed, what + ": " + why);
}

}  // namespace

nlohmann::json OutgoingFrames::add(const Tensor& tensor) {
  tensors_.push_back(&tensor);
  return nlohmann::json{{wire::kName, tensor.name}, {wire::kFrame, tensors_.size() - 1}};
}

nlohmann::json OutgoingFrames::own(Tensor tensor) {
  owned_.push_back(std::move(tensor));
  return add(owned_.back());
}

AnswerFrames::AnswerFrames(std::vector<TensorFrame> frames) : frames_(std::move(frames)), taken_(frames_.size()) {}

Tensor AnswerFrames::take(const nlohmann::json& ref, const std::string& what) {
  const auto name = ref.is_object() ? ref.find(wire::kName) : ref.end();
  const auto frame = ref.is_object() ? ref.find(wire::kFrame) : ref.end();
  if (!ref.is_object() || name == ref.end() || !name->is_string() || frame == ref.end() ||
      !frame->is_number_integer() || frame->get<std::int64_t>() < 0) {
    refuse_malformed(what, "needs \"name\" (a string) and \"frame\" (the index of a tensor frame after the line)");
  }
  const auto index = static_cast<std::uint64_t>(frame->get<std::int64_t>());
  if (index >= frames_.size()) {
    refuse_malformed(what, "frame " + std::to_string(index) + " of " + std::to_string(frames_.size()) + " sent");
  }
  if (taken_[index]) refuse_malformed(what, "frame " + std::to_string(index) + " is named twice");
  taken_[index] = true;
  TensorFrame& f = frames_[index];
  const auto dtype = core_dtype(f.dtype);
  if (!dtype) {
    throw ConformanceError(what + " is " + std::string(wire_dtype_name(f.dtype)) +
                           ", which the worker channel carries but no stage compares yet "
                           "(float32, float64, int64, int32, bool)");
  }
  return Tensor{name->get<std::string>(), *dtype, std::move(f.shape), std::move(f.bytes)};
}

std::vector<float> float32_values(const Tensor& tensor, const std::string& what) {
  if (tensor.dtype != DType::float32) {
    refuse_malformed(what, "is " + std::string(dtype_name(tensor.dtype)) + ", not float32");
  }
  const auto values = tensor.float32_values();
  return {values.begin(), values.end()};
}

}  // namespace nnx
