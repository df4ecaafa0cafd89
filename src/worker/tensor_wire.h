// tensor_wire.h — how named, typed tensors (base/tensor.h) cross the worker protocol, every op and every kind
// (worker/TENSORS.md, "Tensor frames"): in the JSON line a tensor is a reference {"name", "frame": k}; its
// dtype, shape and raw little-endian bytes are the k-th binary frame after the line (tensor_frames.h), never
// base64 or decimal text, so a value arrives bit for bit. The line's top-level "frames" gives their count.
//
// Contract:
//  * OutgoingFrames::add(tensor) returns the reference and remembers the tensor (not copied: it must outlive
//    the request); own(tensor) keeps the tensor itself; WorkerProcess::exchange sends them as frames after the
//    request line, in the order they were added.
//  * AnswerFrames::take(ref, what) returns the tensor a reference names, each frame at most once. Throws
//    WorkerError(malformed) naming `what` when the reference is not {"name": string, "frame": index} or the
//    index is out of range or taken, and ConformanceError naming `what` when the frame's dtype is one the
//    channel carries but the core does not hold (tensor_frames.h core_dtype: none today).
//  * float32_values(tensor, what): the values of a float32 tensor; WorkerError(malformed) for another dtype.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "worker/tensor_frames.h"

namespace nnx {

class OutgoingFrames {
 public:
  OutgoingFrames() = default;
  OutgoingFrames(const OutgoingFrames&) = delete;
  OutgoingFrames& operator=(const OutgoingFrames&) = delete;
  nlohmann::json add(const Tensor& tensor);
  nlohmann::json own(Tensor tensor);
  const std::vector<const Tensor*>& tensors() const { return tensors_; }

 private:
  std::deque<Tensor> owned_;  // a deque: the addresses of kept tensors do not move
  std::vector<const Tensor*> tensors_;
};

class AnswerFrames {
 public:
  AnswerFrames() = default;
  explicit AnswerFrames(std::vector<TensorFrame> frames);
  Tensor take(const nlohmann::json& ref, const std::string& what);
  std::size_t size() const { return frames_.size(); }

 private:
  std::vector<TensorFrame> frames_;
  std::vector<bool> taken_;
};

std::vector<float> float32_values(const Tensor& tensor, const std::string& what);

}  // namespace nnx
