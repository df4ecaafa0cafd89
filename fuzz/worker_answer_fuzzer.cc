// libFuzzer target: the worker's answers as the core reads them (src/worker/: worker_answer.h for the JSON
// line, tensor_frames.h for the binary tensor frames after it, tensor_wire.h for the references to them), on
// any bytes: the input is one answer from a worker that may be broken or hostile, its line up to the first
// newline and its frames after it.
//
// For every input:
//  * parse_worker_answer returns an object with a boolean "ok" or throws WorkerError(malformed) whose
//    message starts "malformed response to 'fuzz'" (anything else is a finding); an accepted answer can be
//    dumped (its nesting is bounded, so the client's error text of a refused answer cannot overflow);
//  * the bytes after the line are fed to a FrameReader (limits 1 MiB per frame, 4 MiB per message, 64
//    frames) for the answer's "frames" count (or 1 when it has none), in two pieces split where the input
//    says: it takes no byte past its last frame and throws only WorkerError(malformed) naming "tensor frame"
//    or the count; every frame it completes holds exactly the bytes its dtype and shape say, within the
//    limit, and survives being written again (frame_header + bytes) and read back bit for bit;
//  * every object inside the answer (any depth) is taken as a tensor reference from those frames: a tensor
//    whose bytes are consistent, or WorkerError(malformed) / ConformanceError naming its `what`.
// A violated expectation calls __builtin_trap(), which libFuzzer reports as a crash with the input.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "worker/tensor_frames.h"
#include "worker/tensor_wire.h"
#include "worker/worker_answer.h"
#include "worker/worker_error.h"

namespace {

constexpr nnx::FrameLimits kLimits{std::uint64_t{1} << 20, std::uint64_t{4} << 20, 64};

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "worker_answer_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
  __builtin_trap();
}

void expect_malformed(const nnx::WorkerError& e, std::string_view what) {
  if (e.kind() != nnx::WorkerError::Kind::malformed) finding("a refusal is not `malformed`", e.what());
  if (std::string_view(e.what()).find(what) == std::string_view::npos) {
    finding("a refusal does not name its what", e.what());
  }
}

std::size_t announced(const nlohmann::json& answer) {
  const auto count = answer.find("frames");
  if (count == answer.end() || !count->is_number_integer() || count->get<std::int64_t>() < 0) return 1;
  return static_cast<std::size_t>(std::min<std::int64_t>(count->get<std::int64_t>(), 1000));
}

void check_frame(const nnx::TensorFrame& f) {
  std::uint64_t count = 1;
  for (const std::int64_t d : f.shape) count *= static_cast<std::uint64_t>(d);
  if (f.bytes.size() != count * nnx::wire_dtype_size(f.dtype) || f.bytes.size() > kLimits.max_frame_bytes) {
    finding("a frame's bytes are not what its dtype and shape say");
  }
  std::string again = nnx::frame_header(f.dtype, f.shape, f.bytes.size());
  again.append(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
  nnx::FrameReader reader(1, kLimits);
  if (reader.feed(again) != again.size() || !reader.done()) finding("a frame written again is not read whole");
  const auto back = reader.take();
  if (back[0].dtype != f.dtype || back[0].shape != f.shape || back[0].bytes != f.bytes) {
    finding("a frame changed on the wire's round trip");
  }
}

std::vector<nnx::TensorFrame> read_frames(std::size_t count, std::string_view rest) {
  const std::size_t split = rest.empty() ? 0 : static_cast<unsigned char>(rest[0]) % (rest.size() + 1);
  try {
    nnx::FrameReader reader(count, kLimits);
    const std::size_t first = reader.feed(rest.substr(0, split));
    const std::size_t second = first == split ? reader.feed(rest.substr(split)) : 0;
    if (first > split || second > rest.size() - split) finding("the reader took more bytes than it was given");
    if (!reader.done()) return {};
    auto frames = reader.take();
    if (frames.size() != count) finding("a done reader does not hold the frames announced");
    for (const auto& f : frames) check_frame(f);
    return frames;
  } catch (const nnx::WorkerError& e) {
    expect_malformed(e, count > kLimits.max_frames ? "tensor frames, more than" : "tensor frame ");
  }
  return {};
}

// Every object of the answer taken as a reference, without recursion (the answer's depth is bounded anyway).
void check_references(const nlohmann::json& answer, nnx::AnswerFrames& frames) {
  std::vector<const nlohmann::json*> todo{&answer};
  while (!todo.empty()) {
    const nlohmann::json* value = todo.back();
    todo.pop_back();
    if (value->is_object()) {
      try {
        const nnx::Tensor t = frames.take(*value, "reference");
        if (!t.consistent()) finding("a referenced tensor is not consistent");
      } catch (const nnx::WorkerError& e) {
        expect_malformed(e, "reference: ");
      } catch (const nnx::ConformanceError& e) {
        if (std::string_view(e.what()).substr(0, 10) != "reference ") {
          finding("a dtype refusal names no what", e.what());
        }
      }
    }
    if (value->is_structured()) {
      for (const auto& member : *value) todo.push_back(&member);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = input.find('\n');
  const std::string_view line = input.substr(0, newline);
  const std::string_view rest = newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  nlohmann::json answer;
  try {
    answer = nnx::parse_worker_answer(line, "'fuzz'");
  } catch (const nnx::WorkerError& e) {
    expect_malformed(e, "malformed response to 'fuzz' (");
    return 0;
  }
  if (!answer.is_object() || !answer["ok"].is_boolean()) finding("an accepted answer has no boolean ok");
  if (answer.dump().empty()) finding("an accepted answer cannot be dumped");
  nnx::AnswerFrames frames(read_frames(announced(answer), rest));
  check_references(answer, frames);
  return 0;
}
