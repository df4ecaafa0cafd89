// tensor_frames.h — the binary tensor frames that follow a JSON line on the worker's pipes (worker/TENSORS.md,
// "Tensor frames"): one channel for every tensor either way (requests on fd 0, answers on fd 3), every kind, but a
// module export's case tensors, which are files (worker/TENSORS.md, "Case tensors as files").
//
// Contract:
//  * A frame is, little-endian: the 4 bytes "NNXF", the dtype code (1 byte: ONNX's TensorProto.DataType
//    number, WireDType), the rank (1 byte), 2 zero bytes, the byte count (8 bytes, unsigned), rank sizes
//    (8 bytes each, signed), then exactly byte count bytes: the elements row-major, raw.
//  * WireDType is every dtype the channel carries: float32, float64, float16, bfloat16, int64, int32, int8,
//    uint8, bool. core_dtype() maps it to base/tensor.h's DType (the core holds every one of them; nullopt is
//    kept for a dtype the channel might carry that the core does not).
//  * FrameReader reads the `count` frames a JSON line announced from bytes fed in pieces of any size. Each
//    header is checked before anything is allocated for its bytes: the magic, a known dtype code, the zero
//    bytes, the rank (at most kMaxFrameRank), non-negative sizes, the byte count equal to the sizes' product
//    times the dtype's size (a wrong dtype size is refused), at most FrameLimits::max_frame_bytes per frame
//    and max_total_bytes for all the frames of one message. A refused header throws WorkerError(malformed)
//    naming the frame and the rule; the reader is then unusable (the stream is out of step).
//  * frame_header() writes the header of a tensor; with the tensor's bytes after it, FrameReader reads it back
//    bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/tensor.h"

namespace nnx {

enum class WireDType : std::uint8_t {
  float32 = 1,
  uint8 = 2,
  int8 = 3,
  int32 = 6,
  int64 = 7,
  boolean = 9,
  float16 = 10,
  float64 = 11,
  bfloat16 = 16,
};

std::optional<WireDType> wire_dtype_of_code(std::uint8_t code);  // nullopt for a code that is none of them
std::size_t wire_dtype_size(WireDType dtype);
std::string_view wire_dtype_name(WireDType dtype);  // "float32", ..., "bool" (as base/tensor.h spells them)
std::optional<DType> core_dtype(WireDType dtype);
WireDType wire_dtype(DType dtype);

inline constexpr std::size_t kMaxFrameRank = 64;
inline constexpr std::size_t kFrameFixedBytes = 16;  // magic, dtype, rank, zeros, byte count

struct FrameLimits {
  std::uint64_t max_frame_bytes = std::uint64_t{64} << 20;  // doc/record-format.md §10: 64 MiB per stored tensor
  std::uint64_t max_total_bytes = std::uint64_t{2} << 30;   // one message's frames together
  std::size_t max_frames = std::size_t{1} << 16;            // frames one JSON line may announce
};

struct TensorFrame {
  WireDType dtype = WireDType::float32;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> bytes;
};

std::string frame_header(WireDType dtype, const std::vector<std::int64_t>& shape, std::uint64_t byte_count);

class FrameReader {
 public:
  // Throws WorkerError(malformed) when `count` is over limits.max_frames.
  FrameReader(std::size_t count, FrameLimits limits);
  // Consumes what it can of `bytes` (never past the last frame) and returns how many bytes it took.
  std::size_t feed(std::string_view bytes);
  bool done() const { return frames_.size() == count_ && header_.empty() && !in_frame_; }
  std::size_t count() const { return count_; }
  // The frames read, in order (call once done()).
  std::vector<TensorFrame> take() { return std::move(frames_); }

 private:
  std::size_t header_size() const;
  void start_frame();

  std::size_t count_;
  FrameLimits limits_;
  std::string header_;  // the current frame's header, while incomplete
  bool in_frame_ = false;
  std::size_t filled_ = 0;  // bytes of the current frame's data received
  std::uint64_t total_ = 0;
  TensorFrame current_;
  std::vector<TensorFrame> frames_;
};

}  // namespace nnx
