// The worker channel's tensor frames (worker/tensor_frames.h) and the references to them (worker/tensor_wire.h):
//  * every dtype of the channel crosses bit for bit (NaN payloads and -0.0 included), fed in any pieces;
//  * a truncated frame is not done; a header that breaks a rule (wrong magic, unknown dtype, a byte count that
//    is not the dtype's size times the elements, a tensor over the per-frame limit, frames over the
//    message's limit) is refused before its bytes are allocated;
//  * a reference names each frame once; a dtype the core does not hold yet is refused naming it.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "base/error.h"
#include "worker/tensor_frames.h"
#include "worker/tensor_wire.h"
#include "worker/worker_error.h"

namespace nnx {
namespace {

std::string frame_of(WireDType dtype, const std::vector<std::int64_t>& shape, const std::string& bytes) {
  return frame_header(dtype, shape, bytes.size()) + bytes;
}

std::string bytes_of(const std::vector<float>& values) {
  std::string out(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::string refusal(std::size_t count, const std::string& stream, FrameLimits limits = {}) {
  try {
    FrameReader reader(count, limits);
    reader.feed(stream);
  } catch (const WorkerError& e) {
    EXPECT_EQ(e.kind(), WorkerError::Kind::malformed);
    return e.what();
  }
  return "";
}

TEST(TensorFrames, EveryDtypeCrossesBitForBitInAnyPieces) {
  const std::vector<float> values{0.1f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::denorm_min(), 3.4e38f, -1.0f};
  std::string stream = frame_of(WireDType::float32, {2, 3}, bytes_of(values));
  const WireDType all[] = {WireDType::float64, WireDType::float16, WireDType::bfloat16, WireDType::int64,
                           WireDType::int32,   WireDType::int8,    WireDType::uint8,    WireDType::boolean};
  for (const WireDType d : all) stream += frame_of(d, {3}, std::string(3 * wire_dtype_size(d), '\x01'));
  stream += frame_of(WireDType::float32, {0, 5}, "");  // empty
  stream += frame_of(WireDType::float64, {}, std::string(8, '\x02'));  // a scalar
  for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, stream.size()}) {
    FrameReader reader(11, FrameLimits{});
    for (std::size_t at = 0; at < stream.size(); at += piece) {
      EXPECT_FALSE(reader.done());
      EXPECT_EQ(reader.feed(std::string_view(stream).substr(at, piece)), std::min(piece, stream.size() - at));
    }
    ASSERT_TRUE(reader.done());
    const auto frames = reader.take();
    ASSERT_EQ(frames.size(), 11u);
    EXPECT_EQ(frames[0].shape, (std::vector<std::int64_t>{2, 3}));
    ASSERT_EQ(frames[0].bytes.size(), values.size() * 4);
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint32_t got;
      std::memcpy(&got, frames[0].bytes.data() + 4 * i, 4);
      EXPECT_EQ(got, std::bit_cast<std::uint32_t>(values[i])) << i;
    }
    for (std::size_t k = 0; k < 8; ++k) EXPECT_EQ(frames[1 + k].dtype, all[k]);
    EXPECT_TRUE(frames[9].bytes.empty());
    EXPECT_TRUE(frames[10].shape.empty());
  }
}

TEST(TensorFrames, ATruncatedFrameIsNotDoneAndLeavesTheRestUnread) {
  const std::string frame = frame_of(WireDType::int32, {4}, std::string(16, '\x05'));
  for (const std::size_t cut : {std::size_t{3}, std::size_t{16}, std::size_t{20}, frame.size() - 1}) {
    FrameReader reader(1, FrameLimits{});
    EXPECT_EQ(reader.feed(frame.substr(0, cut)), cut);
    EXPECT_FALSE(reader.done()) << cut;
  }
  FrameReader reader(1, FrameLimits{});
  EXPECT_EQ(reader.feed(frame + "next line"), frame.size()) << "nothing past the last frame is taken";
  EXPECT_TRUE(reader.done());
}

TEST(TensorFrames, ALengthOverTheLimitIsRefusedBeforeAllocating) {
  // A header claiming 2^60 bytes: refused from the header alone (nothing of that size could be allocated).
  std::string huge = frame_header(WireDType::uint8, {std::int64_t{1} << 60}, std::uint64_t{1} << 60);
  EXPECT_NE(refusal(1, huge).find("over the limit of 67108864 bytes per tensor"), std::string::npos);
  // One element over 64 MiB of float32.
  const std::int64_t over = (std::int64_t{64} << 20) / 4 + 1;
  EXPECT_NE(refusal(1, frame_header(WireDType::float32, {over}, over * 4)).find("over the limit"), std::string::npos);
  // Sizes whose product overflows 64 bits.
  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_NE(refusal(1, frame_header(WireDType::int8, {big, big}, 0)).find("over the limit"), std::string::npos);
  // Two frames within the per-frame limit, over the message's.
  FrameLimits small;
  small.max_total_bytes = 12;
  const std::string eight = frame_of(WireDType::float64, {1}, std::string(8, '\0'));
  EXPECT_NE(refusal(2, eight + eight, small).find("the frames of one message hold more than 12 bytes"),
            std::string::npos);
  small.max_frames = 3;
  EXPECT_NE(refusal(4, "", small).find("more than 3"), std::string::npos);
}

TEST(TensorFrames, AByteCountThatIsNotTheDtypesSizeIsRefused) {
  // 3 float64 values need 24 bytes: 12 (float32's size) is refused, naming the dtype's size.
  const std::string wrong = frame_header(WireDType::float64, {3}, 12) + std::string(12, '\0');
  const std::string why = refusal(1, wrong);
  EXPECT_NE(why.find("tensor frame 0: 12 bytes for 3 float64 values (8 bytes each)"), std::string::npos) << why;
}

TEST(TensorFrames, AMalformedHeaderIsRefusedNamingTheRule) {
  std::string header = frame_header(WireDType::float32, {1}, 4);
  std::string bad_magic = header;
  bad_magic[0] = 'X';
  EXPECT_NE(refusal(1, bad_magic).find("no frame header"), std::string::npos);
  std::string bad_dtype = header;
  bad_dtype[4] = 4;  // UINT16: not carried
  EXPECT_NE(refusal(1, bad_dtype).find("unknown dtype code 4"), std::string::npos);
  std::string bad_rank = header;
  bad_rank[5] = static_cast<char>(kMaxFrameRank + 1);
  EXPECT_NE(refusal(1, bad_rank).find("rank 65 over 64"), std::string::npos);
  EXPECT_NE(refusal(1, frame_header(WireDType::float32, {-2}, 0)).find("negative"), std::string::npos);
}

TEST(TensorWire, AReferenceNamesEachFrameOnceAndAFloat16FrameIsAFloat16Tensor) {
  FrameReader reader(2, FrameLimits{});
  const std::string half_one("\x00\x3c", 2);
  reader.feed(frame_of(WireDType::float32, {1}, bytes_of({2.5f})) + frame_of(WireDType::float16, {1}, half_one));
  AnswerFrames frames(reader.take());
  const Tensor t = frames.take({{"name", "y"}, {"frame", 0}}, "output y");
  EXPECT_EQ(t.name, "y");
  EXPECT_EQ(float32_values(t, "y"), std::vector<float>{2.5f});
  EXPECT_THROW(frames.take({{"name", "y"}, {"frame", 0}}, "again"), WorkerError);
  EXPECT_THROW(frames.take({{"name", "y"}, {"frame", 2}}, "out of range"), WorkerError);
  EXPECT_THROW(frames.take({{"name", "y"}, {"data", "AAAA"}}, "base64"), WorkerError);
  const Tensor half = frames.take({{"name", "h"}, {"frame", 1}}, "output h of case batch-1");
  EXPECT_EQ(half.dtype, DType::float16);
  EXPECT_EQ(half.as_doubles(), std::vector<double>{1.0});
}

}  // namespace
}  // namespace nnx
