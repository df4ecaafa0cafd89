#include "base/interrupt.h"

#include <csignal>

namespace nnx {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void record_interrupt(int sig) {
  if (g_signal == 0) g_signal = sig;
}

struct sigaction recording_action() {
  struct sigaction action {};
  action.sa_handler = record_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and its loop looks at the flag
  return action;
}

}  // namespace

int interrupt_signal() noexcept { return static_cast<int>(g_signal); }

void throw_if_interrupted() {
  if (const int sig = interrupt_signal()) throw Interrupted(sig);
}

std::string signal_text(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

ScopedInterruptHandlers::ScopedInterruptHandlers() {
  g_signal = 0;
  const struct sigaction action = recording_action();
  ::sigaction(SIGINT, &action, &previous_int_);
  ::sigaction(SIGTERM, &action, &previous_term_);
}

ScopedInterruptHandlers::~ScopedInterruptHandlers() {
  ::sigaction(SIGINT, &previous_int_, nullptr);
  ::sigaction(SIGTERM, &previous_term_, nullptr);
}

}  // namespace nnx
