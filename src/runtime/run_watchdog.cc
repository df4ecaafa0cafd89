// RunWatchdog; contract in run_watchdog.h.
#include "runtime/run_watchdog.h"

#include "base/error.h"
#include "base/interrupt.h"
#include "base/json_python.h"
#include "runtime/runtime.h"

namespace nnx {

RunWatchdog::RunWatchdog(std::chrono::milliseconds timeout, std::function<void()> stop)
    : timeout_(timeout), stop_(std::move(stop)), thread_([this] { watch(); }) {}

RunWatchdog::~RunWatchdog() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  done_changed_.notify_all();
  thread_.join();
}

void RunWatchdog::watch() {
  using Clock = std::chrono::steady_clock;
  constexpr auto kSlice = std::chrono::milliseconds(20);  // how soon a signal stops the run
  const bool bounded = timeout_.count() > 0;
  const auto deadline = Clock::now() + timeout_;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!done_) {
    if (const int sig = interrupt_signal()) {
      signal_ = sig;
    } else if (bounded && Clock::now() >= deadline) {
      timed_out_ = true;
    } else {
      done_changed_.wait_for(lock, kSlice);
      continue;
    }
    stop_();
    return;
  }
}

void RunWatchdog::throw_if_stopped() const {
  if (const int sig = signal_.load()) throw Interrupted(sig);
  if (timed_out_) {
    throw RuntimeFailure(false, kTimeoutCode,
                         "the run did not finish within " +
                             python_float_repr(static_cast<double>(timeout_.count()) / 1000.0) +
                             " s (the time limit of one input case) and was stopped");
  }
}

}  // namespace nnx
