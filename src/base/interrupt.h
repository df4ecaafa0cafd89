// Cooperative interruption: SIGINT or SIGTERM during a run (doc/architecture.md, "Signals").
//
// `ScopedInterruptHandlers` makes SIGINT and SIGTERM only record the signal for its lifetime (no
// SA_RESTART, so a blocking call returns EINTR) and puts back the handlers it found (the Python
// interpreter's own SIGINT handler, for instance); app/ holds one for each run and execute. Long waits look
// at `interrupt_signal()`: the worker client kills and reaps the worker's process group and throws
// Interrupted; the run checks it between stages and before the report is written. Front ends map
// Interrupted to their own outcome (the command line: exit 128 + signal, no report; the Python module:
// KeyboardInterrupt).
#pragma once

#include <signal.h>

#include <string>

#include "base/error.h"

namespace nnx {

// 0, or the first SIGINT/SIGTERM received since the handlers were installed (or the flag was cleared).
int interrupt_signal() noexcept;
// Throws Interrupted when a signal was received.
void throw_if_interrupted();
// A signal's name: "SIGINT", "SIGSEGV", ... (sigabbrev_np), or "signal N" for a number without one.
std::string signal_text(int signal);

// Installs the handlers for its lifetime with the flag cleared; restores the previous handlers after.
class ScopedInterruptHandlers {
 public:
  ScopedInterruptHandlers();
  ~ScopedInterruptHandlers();
  ScopedInterruptHandlers(const ScopedInterruptHandlers&) = delete;
  ScopedInterruptHandlers& operator=(const ScopedInterruptHandlers&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace nnx
