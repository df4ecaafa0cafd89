// libFuzzer target: the worker channel's frame reader alone (src/worker/tensor_frames.h, FrameReader), on any
// bytes fed in pieces of any size. worker_answer_fuzzer reaches the frames only after an answer line that
// parses, with one count, fixed limits and one split; here the first three bytes choose the frames announced
// (0..8), the limits (one frame and one message, each 0..3840 bytes in steps of 256, so each limit is reached)
// and the piece size, and the rest is the stream, fed piece by piece as a pipe may hand it over.
//
// For every input:
//  * the reader takes no byte past its last frame and never more than it was given, and throws only
//    WorkerError(malformed) naming "tensor frame"; after a refusal it is not fed again;
//  * the frames of a done reader are the count announced, each holding exactly the bytes its dtype and shape
//    say, within the frame limit, all of them within the message limit;
//  * the same stream fed whole gives the same outcome: the same bytes taken and the same frames, or a refusal
//    (the pieces a pipe hands over change nothing);
//  * each frame written again (frame_header + bytes) reads back bit for bit.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "worker/tensor_frames.h"
#include "worker/worker_error.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "tensor_frames_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}

struct Outcome {
  bool refused = false;
  std::size_t taken = 0;
  std::vector<nnx::TensorFrame> frames;  // when the reader is done
  bool done = false;
};

// Feeds `stream` in pieces of `piece` bytes (the whole stream when piece is 0) until the reader stops taking.
Outcome read(std::size_t count, const nnx::FrameLimits& limits, std::string_view stream, std::size_t piece) {
  Outcome out;
  try {
    nnx::FrameReader reader(count, limits);
    while (out.taken < stream.size()) {
      const std::string_view offered = stream.substr(out.taken, piece == 0 ? std::string_view::npos : piece);
      const std::size_t took = reader.feed(offered);
      if (took > offered.size()) finding("the reader took more bytes than it was given");
      out.taken += took;
      if (took < offered.size()) break;  // it stopped before the end of a piece: its last frame is read
    }
    out.done = reader.done();
    if (out.done) out.frames = reader.take();
    else if (out.taken < stream.size()) finding("a reader not done left bytes it was given");
  } catch (const nnx::WorkerError& e) {
    if (e.kind() != nnx::WorkerError::Kind::malformed) finding("a refusal is not `malformed`", e.what());
    if (std::string_view(e.what()).find("tensor frame") == std::string_view::npos) {
      finding("a refusal does not name the tensor frame", e.what());
    }
    out.refused = true;
  }
  return out;
}

void check_frames(const Outcome& out, std::size_t count, const nnx::FrameLimits& limits) {
  if (out.frames.size() != count) finding("a done reader does not hold the frames announced");
  std::uint64_t total = 0;
  for (const auto& f : out.frames) {
    std::uint64_t elements = 1;
    for (const std::int64_t d : f.shape) {
      if (d < 0) finding("a frame kept a negative size");
      elements *= static_cast<std::uint64_t>(d);
    }
    if (f.shape.size() > nnx::kMaxFrameRank) finding("a frame over the rank limit");
    if (f.bytes.size() != elements * nnx::wire_dtype_size(f.dtype)) finding("a frame's bytes are not its shape's");
    if (f.bytes.size() > limits.max_frame_bytes) finding("a frame over the frame limit");
    total += f.bytes.size();
    std::string again = nnx::frame_header(f.dtype, f.shape, f.bytes.size());
    again.append(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
    nnx::FrameReader reader(1, nnx::FrameLimits{});
    if (reader.feed(again) != again.size() || !reader.done()) finding("a frame written again is not read whole");
    const auto back = reader.take();
    if (back[0].dtype != f.dtype || back[0].shape != f.shape || back[0].bytes != f.bytes) {
      finding("a frame changed on the wire's round trip");
    }
  }
  if (total > limits.max_total_bytes) finding("frames over the message limit");
}

bool same(const Outcome& a, const Outcome& b) {
  if (a.refused != b.refused || a.done != b.done) return false;
  if (a.refused) return true;
  if (a.taken != b.taken || a.frames.size() != b.frames.size()) return false;
  for (std::size_t i = 0; i < a.frames.size(); ++i) {
    const auto &x = a.frames[i], &y = b.frames[i];
    if (x.dtype != y.dtype || x.shape != y.shape || x.bytes != y.bytes) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::size_t count = data[0] % 9;
  const nnx::FrameLimits limits{static_cast<std::uint64_t>(data[1] & 0x0f) << 8,
                                static_cast<std::uint64_t>(data[1] >> 4) << 8, 8};
  const std::size_t piece = data[2];  // 0: the whole stream at once
  const std::string_view stream(reinterpret_cast<const char*>(data) + 3, size - 3);
  const Outcome pieces = read(count, limits, stream, piece);
  const Outcome whole = read(count, limits, stream, 0);
  if (!same(pieces, whole)) finding("the pieces a pipe hands over changed the outcome");
  if (pieces.done) check_frames(pieces, count, limits);
  return 0;
}
