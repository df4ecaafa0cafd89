// A bound on one runtime run (doc/architecture.md, "Signals"; doc/safety.md, "Time and memory limits").
//
// `RunWatchdog` watches from a thread of its own for its lifetime: when `timeout` has passed, or when
// SIGINT or SIGTERM arrived (base/interrupt.h's flag, looked at every 20 ms), it calls `stop` once (ONNX
// Runtime's RunOptions::SetTerminate, which the runtime looks at between nodes and between a Loop's
// iterations) and remembers why. The destructor ends and joins the thread. The run that was stopped
// then throws; `throw_if_stopped` turns that into what happened: Interrupted for a signal, a
// RuntimeFailure with code TIMEOUT naming the limit for a timeout (parity records it as the case's
// runtime-error). A zero timeout means none.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace nnx {

// One input case's time limit unless the caller sets one (execute --timeout; Python's execute keeps this one).
inline constexpr std::chrono::seconds kDefaultRunTimeout{600};
inline constexpr const char* kTimeoutCode = "TIMEOUT";  // RuntimeFailure::code_name of a run stopped for its time

class RunWatchdog {
 public:
  RunWatchdog(std::chrono::milliseconds timeout, std::function<void()> stop);
  ~RunWatchdog();
  RunWatchdog(const RunWatchdog&) = delete;
  RunWatchdog& operator=(const RunWatchdog&) = delete;

  // Throws Interrupted or the TIMEOUT RuntimeFailure when `stop` was called; otherwise nothing.
  void throw_if_stopped() const;

 private:
  void watch();

  std::chrono::milliseconds timeout_;
  std::function<void()> stop_;
  std::mutex mutex_;
  std::condition_variable done_changed_;
  bool done_ = false;
  std::atomic<bool> timed_out_{false};
  std::atomic<int> signal_{0};
  std::thread thread_;
};

}  // namespace nnx
