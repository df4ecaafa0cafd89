// tensor_frames.cc — the worker channel's binary tensor frames; contract in tensor_frames.h.
#include "worker/tensor_frames.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "worker/worker_error.h"

namespace nnx {
namespace {

static_assert(std::endian::native == std::endian::little, "frames carry little-endian numbers");

constexpr std::string_view kFrameMagic = "NNXF";

std::uint64_t read_u64(const char* at) {
  std::uint64_t value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

void put_u64(std::string& out, std::uint64_t value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof bytes);
}

}  // namespace

std::optional<WireDType> wire_dtype_of_code(std::uint8_t code) {
  const auto dtype = static_cast<WireDType>(code);
  switch (dtype) {
    case WireDType::float32:
    case WireDType::uint8:
    case WireDType::int8:
    case WireDType::int32:
    case WireDType::int64:
    case WireDType::boolean:
    case WireDType::float16:
    case WireDType::float64:
    case WireDType::bfloat16:
      return dtype;
  }
  return std::nullopt;
}

std::size_t wire_dtype_size(WireDType dtype) {
  switch (dtype) {
    case WireDType::uint8:
    case WireDType::int8:
    case WireDType::boolean: return 1;
    case WireDType::float16:
    case WireDType::bfloat16: return 2;
    case WireDType::float32:
    case WireDType::int32: return 4;
    case WireDType::int64:
    case WireDType::float64: return 8;
  }
  return 0;  // not reached: every WireDType is a case above
}

std::string_view wire_dtype_name(WireDType dtype) {
  switch (dtype) {
    case WireDType::float32: return "float32";
    case WireDType::uint8: return "uint8";
    case WireDType::int8: return "int8";
    case WireDType::int32: return "int32";
    case WireDType::int64: return "int64";
    case WireDType::boolean: return "bool";
    case WireDType::float16: return "float16";
    case WireDType::float64: return "float64";
    case WireDType::bfloat16: return "bfloat16";
  }
  return "?";  // not reached
}

std::optional<DType> core_dtype(WireDType dtype) {
  switch (dtype) {
    case WireDType::float32: return DType::float32;
    case WireDType::float64: return DType::float64;
    case WireDType::int64: return DType::int64;
    case WireDType::int32: return DType::int32;
    case WireDType::boolean: return DType::boolean;
    case WireDType::uint8: return DType::uint8;
    case WireDType::int8: return DType::int8;
    case WireDType::float16: return DType::float16;
    case WireDType::bfloat16: return DType::bfloat16;
  }
  return std::nullopt;  // not reached
}

WireDType wire_dtype(DType dtype) {
  switch (dtype) {
    case DType::float32: return WireDType::float32;
    case DType::float64: return WireDType::float64;
    case DType::int64: return WireDType::int64;
    case DType::int32: return WireDType::int32;
    case DType::boolean: return WireDType::boolean;
    case DType::float16: return WireDType::float16;
    case DType::bfloat16: return WireDType::bfloat16;
    case DType::int8: return WireDType::int8;
    case DType::uint8: return WireDType::uint8;
  }
  return WireDType::float32;  // not reached
}

std::string frame_header(WireDType dtype, const std::vector<std::int64_t>& shape, std::uint64_t byte_count) {
  std::string out(kFrameMagic);
  out += static_cast<char>(static_cast<std::uint8_t>(dtype));
  out += static_cast<char>(static_cast<std::uint8_t>(shape.size()));
  out.append(2, '\0');
  put_u64(out, byte_count);
  for (const std::int64_t size : shape) put_u64(out, static_cast<std::uint64_t>(size));
  return out;
}

FrameReader::FrameReader(std::size_t count, FrameLimits limits) : count_(count), limits_(limits) {
  if (count > limits_.max_frames) {
    throw WorkerError(WorkerError::Kind::malformed, "the answer announces " + std::to_string(count) +
                                                        " tensor frames, more than " +
                                                        std::to_string(limits_.max_frames));
  }
}

// The header's length once its fixed part is known (its first 16 bytes checked), else the fixed part's.
std::size_t FrameReader::header_size() const {
  if (header_.size() < kFrameFixedBytes) return kFrameFixedBytes;
  return kFrameFixedBytes + 8 * static_cast<std::uint8_t>(header_[5]);
}

void FrameReader::start_frame() {
  const std::string what = "tensor frame " + std::to_string(frames_.size());
  auto refuse = [&](const std::string& why) { throw WorkerError(WorkerError::Kind::malformed, what + ": " + why); };
  const auto dtype = wire_dtype_of_code(static_cast<std::uint8_t>(header_[4]));
  if (!dtype) refuse("unknown dtype code " + std::to_string(static_cast<std::uint8_t>(header_[4])));
  current_ = TensorFrame{*dtype, {}, {}};
  std::uint64_t count = 1;
  bool empty = false;
  for (std::size_t i = kFrameFixedBytes; i < header_.size(); i += 8) {
    const auto size = static_cast<std::int64_t>(read_u64(header_.data() + i));
    if (size < 0) refuse("a size is negative (" + std::to_string(size) + ")");
    current_.shape.push_back(size);
    if (size == 0) empty = true;
    if (!empty && count > limits_.max_frame_bytes / static_cast<std::uint64_t>(size)) count = UINT64_MAX;
    else if (!empty) count *= static_cast<std::uint64_t>(size);
  }
  if (empty) count = 0;
  const std::uint64_t byte_count = read_u64(header_.data() + 8);
  const std::size_t element = wire_dtype_size(*dtype);
  if (count > limits_.max_frame_bytes / element || byte_count > limits_.max_frame_bytes) {
    refuse("a " + std::string(wire_dtype_name(*dtype)) + " tensor over the limit of " +
           std::to_string(limits_.max_frame_bytes) + " bytes per tensor");
  }
  if (byte_count != count * element) {
    refuse(std::to_string(byte_count) + " bytes for " + std::to_string(count) + " " +
           std::string(wire_dtype_name(*dtype)) + " values (" + std::to_string(element) + " bytes each)");
  }
  if (byte_count > limits_.max_total_bytes - std::min(total_, limits_.max_total_bytes)) {
    refuse("the frames of one message hold more than " + std::to_string(limits_.max_total_bytes) + " bytes");
  }
  total_ += byte_count;
  current_.bytes.resize(byte_count);
  header_.clear();
  in_frame_ = true;
  filled_ = 0;
}

std::size_t FrameReader::feed(std::string_view bytes) {
  std::size_t used = 0;
  for (;;) {
    if (in_frame_) {
      const std::size_t take = std::min(bytes.size() - used, current_.bytes.size() - filled_);
      if (take) std::memcpy(current_.bytes.data() + filled_, bytes.data() + used, take);
      used += take;
      filled_ += take;
      if (filled_ < current_.bytes.size()) return used;
      frames_.push_back(std::move(current_));
      in_frame_ = false;
      continue;
    }
    if (frames_.size() == count_ || used == bytes.size()) return used;
    const std::size_t take = std::min(bytes.size() - used, header_size() - header_.size());
    header_.append(bytes.data() + used, take);
    used += take;
    if (header_.size() == kFrameFixedBytes) {
      const std::string what = "tensor frame " + std::to_string(frames_.size()) + ": ";
      if (std::string_view(header_).substr(0, 4) != kFrameMagic || header_[6] != '\0' || header_[7] != '\0') {
        throw WorkerError(WorkerError::Kind::malformed, what + "no frame header (\"NNXF\", dtype, rank, 0, 0)");
      }
      if (static_cast<std::uint8_t>(header_[5]) > kMaxFrameRank) {
        throw WorkerError(WorkerError::Kind::malformed, what + "rank " +
                                                            std::to_string(static_cast<std::uint8_t>(header_[5])) +
                                                            " over " + std::to_string(kMaxFrameRank));
      }
    }
    if (header_.size() >= kFrameFixedBytes && header_.size() == header_size()) start_frame();
  }
}

}  // namespace nnx
