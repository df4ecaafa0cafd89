// ONNX Runtime's own log lines, never printed. Its default logger writes each message at or above the
// environment's level to stderr, raw and ANSI-coloured ("[E:onnxruntime:, sequential_executor.cc:671
// ExecuteKernel] Non-zero status code returned while running Reshape node ..."), with a time and a thread:
// noise on a failing run's terminal and in a test's captured output. The environment (onnx_runtime.cc) is
// created with `drop_runtime_log_line` as its logger instead, which drops every line. Nothing is lost:
// a call that fails returns its status, whose message the stages record as the stage's or case's detail
// (the same text the log line repeats), and the records gain nothing.
#pragma once

#include <onnxruntime_c_api.h>

namespace nnx {

// An OrtLoggingFunction that drops the line (safe from any of the library's threads).
void ORT_API_CALL drop_runtime_log_line(void* param, OrtLoggingLevel severity, const char* category,
                                        const char* logid, const char* code_location, const char* message);

}  // namespace nnx
