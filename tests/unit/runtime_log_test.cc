// ONNX Runtime's log lines as a stage keeps them (runtime/runtime_log.h): the message text without ESC
// sequences or control bytes (newline and tab kept), cut at a UTF-8 boundary, and only on the thread holding a
// capture, the innermost one, at most kMaxMessages lines with the rest counted.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "runtime/runtime_log.h"

namespace nnx {
namespace {

void log(const char* message) {
  keep_runtime_log_line(nullptr, ORT_LOGGING_LEVEL_ERROR, "onnxruntime", "id", "sequential_executor.cc:1", message);
}

TEST(RuntimeLog, TheTextLosesEscapeSequencesAndControlBytesButNotNewlineOrTab) {
  EXPECT_EQ(runtime_log_text("\x1b[1;31mReshape\x1b[m failed\a\r\n\tat node"), "Reshape failed\n\tat node");
  EXPECT_EQ(runtime_log_text(nullptr), "");
}

TEST(RuntimeLog, ALongMessageIsCutAtACharacterBoundary) {
  std::string message(RuntimeLogCapture::kMaxMessageBytes - 5, 'a');
  message += "\xC3\xA9\xC3\xA9\xC3\xA9";  // "ééé": the cut falls on the second
  const std::string text = runtime_log_text(message.c_str());
  EXPECT_LE(text.size(), RuntimeLogCapture::kMaxMessageBytes);
  EXPECT_EQ(text.substr(text.size() - 5), "\xC3\xA9\xE2\x80\xA6");  // one whole é, then "…"
}

TEST(RuntimeLog, OnlyTheInnermostCaptureOfTheLoggingThreadKeepsALine) {
  log("before any capture");
  RuntimeLogCapture outer;
  {
    RuntimeLogCapture inner;
    log("inner");
    std::thread([] { log("another thread"); }).join();
    EXPECT_EQ(inner.messages(), std::vector<std::string>{"inner"});
  }
  log("outer");
  EXPECT_EQ(outer.messages(), std::vector<std::string>{"outer"});
}

TEST(RuntimeLog, LinesBeyondTheLimitAreCountedNotKept) {
  RuntimeLogCapture capture;
  for (std::size_t i = 0; i < RuntimeLogCapture::kMaxMessages + 3; ++i) log("line");
  EXPECT_EQ(capture.messages().size(), RuntimeLogCapture::kMaxMessages);
  EXPECT_EQ(capture.dropped(), 3u);
}

}  // namespace
}  // namespace nnx
