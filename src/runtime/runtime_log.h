// ONNX Runtime's own log lines, never printed. Its default logger writes each message at or above the
// environment's level to stderr, raw and ANSI-coloured ("[E:onnxruntime:, sequential_executor.cc:671
// ExecuteKernel] Non-zero status code returned while running Reshape node ..."), with a time and a thread:
// noise on a failing run's terminal and in a test's captured output. The environment (onnx_runtime.cc) is
// created at the WARNING level with `keep_runtime_log_line` as its logger instead, which prints nothing.
// A line logged on a thread that holds a RuntimeLogCapture is kept by that capture as its message text
// only: no time, thread, severity, category or code location (ONNX Runtime hands those apart), every ESC
// sequence and other control byte but newline and tab removed; at most kMaxMessages lines of at most
// kMaxMessageBytes bytes each (cut at a UTF-8 boundary, "…" appended), the rest counted and dropped. Every
// other line is dropped. A session is created and run on the thread that asks (one intra-op and one inter-op
// thread, doc/record-format.md §4), so a capture held around a stage sees that stage's lines and no other
// run's. The pipeline (stages/pipeline.cc) keeps them in a successor-format record's stage detail.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <onnxruntime_c_api.h>

namespace nnx {

// An OrtLoggingFunction: keeps the message for the calling thread's capture, if any (safe from any thread).
void ORT_API_CALL keep_runtime_log_line(void* param, OrtLoggingLevel severity, const char* category,
                                        const char* logid, const char* code_location, const char* message);

// Keeps the runtime's lines logged on this thread while it lives (nested: the innermost keeps them).
class RuntimeLogCapture {
 public:
  static constexpr std::size_t kMaxMessages = 16;
  static constexpr std::size_t kMaxMessageBytes = 1024;

  RuntimeLogCapture();
  ~RuntimeLogCapture();
  RuntimeLogCapture(const RuntimeLogCapture&) = delete;
  RuntimeLogCapture& operator=(const RuntimeLogCapture&) = delete;

  const std::vector<std::string>& messages() const { return messages_; }
  std::size_t dropped() const { return dropped_; }  // lines beyond kMaxMessages
  void keep(const char* message);

 private:
  RuntimeLogCapture* outer_;
  std::vector<std::string> messages_;
  std::size_t dropped_ = 0;
};

// The message text as a capture keeps it: ESC sequences and control bytes (but \n, \t) removed, cut to
// kMaxMessageBytes at a UTF-8 boundary.
std::string runtime_log_text(const char* message);

}  // namespace nnx
