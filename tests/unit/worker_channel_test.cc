// worker_channel_test.cc — the tensor frames of WorkerProcess::exchange over real pipes (worker/TENSORS.md,
// "Tensor frames"), against small Python scripts run with `python3` from PATH that echo, lie or stop:
//  * a request's tensors reach the worker as frames after its line and come back bit for bit, larger
//    than a pipe's buffer either way;
//  * an answer whose frame header claims more than the limit is malformed before anything is allocated,
//    and the worker is killed;
//  * a worker that ends inside a frame has died.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/files.h"
#include "support/temp_dir.h"
#include "worker/tensor_wire.h"
#include "worker/worker_process.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The script reads each request line and its frames (raw), then runs `answer` with `line` (the request as a
// dict) and `frames` (the raw frames, a list of bytes) in scope.
fs::path script(const test_support::TempDir& dir, const std::string& answer) {
  return test_support::write_file(dir.path() / "w.py",
                                  "import json, os, struct, sys\n"
                                  "def read(n):\n"
                                  "    data = sys.stdin.buffer.read(n)\n"
                                  "    assert len(data) == n\n"
                                  "    return data\n"
                                  "def frame():\n"
                                  "    head = read(16)\n"
                                  "    rank, size = head[5], struct.unpack('<Q', head[8:16])[0]\n"
                                  "    return head + read(8 * rank + size)\n"
                                  "def write(data):\n"
                                  "    view = memoryview(data)\n"
                                  "    while view:\n"
                                  "        view = view[os.write(3, view):]\n"
                                  "while True:\n"
                                  "    text = sys.stdin.buffer.readline()\n"
                                  "    if not text:\n"
                                  "        break\n"
                                  "    line = json.loads(text)\n"
                                  "    frames = [frame() for _ in range(line.get('frames', 0))]\n" +
                                      answer);
}

// An answer line announcing one frame, then the start of a float32 frame of rank 1 (its count and size follow).
const std::string kOneFrameHeader = "    write(b'{\"ok\": true, \"frames\": 1}\\n' + b'NNXF' + bytes([1, 1, 0, 0])";

WorkerLimits plain_limits() {
  WorkerLimits limits;
  limits.max_output_bytes = std::uint64_t{1} << 30;
  return limits;
}

Tensor counting(std::string name, std::size_t count) {
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i) * 0.5f;
  return Tensor::float32(std::move(name), {static_cast<std::int64_t>(count)}, values);
}

TEST(WorkerChannel, TensorsCrossBothWaysBitForBitBeyondAPipesBuffer) {
  test_support::TempDir dir;
  WorkerProcess worker({"python3", script(dir, "    write(json.dumps({'ok': True, 'echo': line.get('x'), 'frames':"
                                                " len(frames)}).encode() + b'\\n' + b''.join(frames))\n"),
                        {}},
                       plain_limits());
  const Tensor big = counting("big", std::size_t{5} << 20);  // 20 MiB
  OutgoingFrames sent;
  const nlohmann::json request{{"op", "echo"}, {"x", json::array({sent.add(big), sent.own(counting("small", 3))})}};
  WorkerReply reply = worker.exchange(request, sent.tensors(), 60s);
  ASSERT_EQ(reply.frames.size(), 2u);
  AnswerFrames frames(std::move(reply.frames));
  const Tensor back = frames.take(reply.body["echo"][0], "echo 0");
  EXPECT_EQ(back.name, "big");
  EXPECT_EQ(back.shape, big.shape);
  EXPECT_TRUE(back.bytes == big.bytes);
  EXPECT_EQ(float32_values(frames.take(reply.body["echo"][1], "echo 1"), "small"), (std::vector<float>{0, 0.5f, 1}));
  EXPECT_EQ(worker.request({{"op", "again"}}, 60s)["ok"], true) << "the stream stays in step";
}

TEST(WorkerChannel, AFrameOverTheLimitIsMalformedBeforeAllocatingAndTheWorkerIsKilled) {
  test_support::TempDir dir;
  WorkerProcess worker({"python3", script(dir, kOneFrameHeader + " + struct.pack('<Qq', 1 << 42, 1 << 40))\n"),
                        {}},
                       plain_limits());
  try {
    worker.request({{"op", "lie"}}, 60s);
    ADD_FAILURE() << "a frame of 4 TiB was accepted";
  } catch (const WorkerError& e) {
    EXPECT_EQ(e.kind(), WorkerError::Kind::malformed);
    EXPECT_NE(std::string(e.what()).find("over the limit of 67108864 bytes per tensor"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(worker.running());
}

TEST(WorkerChannel, AWorkerThatEndsInsideAFrameHasDied) {
  test_support::TempDir dir;
  WorkerProcess worker({"python3", script(dir, kOneFrameHeader + " + struct.pack('<Qq', 400, 100) + bytes(10))\n"
                                                "    os._exit(0)\n"),
                        {}},
                       plain_limits());
  try {
    worker.request({{"op", "stop"}}, 60s);
    ADD_FAILURE() << "a truncated frame was accepted";
  } catch (const WorkerError& e) {
    EXPECT_EQ(e.kind(), WorkerError::Kind::died) << e.what();
  }
}

}  // namespace
}  // namespace nnx
