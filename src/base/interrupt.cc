#include "base/interrupt.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace nnx {
namespace {

// Written by the handler on whichever thread the signal lands, read by every thread of a run (run --jobs):
// a lock-free atomic, which a signal handler may use (volatile sig_atomic_t is safe for one thread only).
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void record_interrupt(int sig) {
  const int saved_errno = errno;  // the interrupted call's errno (EINTR) stays what it was
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  errno = saved_errno;
}

struct sigaction recording_action() {
  struct sigaction action {};
  action.sa_handler = record_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and its loop looks at the flag
  return action;
}

}  // namespace

int interrupt_signal() noexcept { return g_signal.load(); }

void throw_if_interrupted() {
  if (const int sig = interrupt_signal()) throw Interrupted(sig);
}

std::string signal_text(int sig) {
  const char* abbreviation = sigabbrev_np(sig);
  return abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(sig);
}

ScopedInterruptHandlers::ScopedInterruptHandlers() {
  g_signal.store(0);
  const struct sigaction action = recording_action();
  ::sigaction(SIGINT, &action, &previous_int_);
  ::sigaction(SIGTERM, &action, &previous_term_);
}

ScopedInterruptHandlers::~ScopedInterruptHandlers() {
  ::sigaction(SIGINT, &previous_int_, nullptr);
  ::sigaction(SIGTERM, &previous_term_, nullptr);
}

}  // namespace nnx
