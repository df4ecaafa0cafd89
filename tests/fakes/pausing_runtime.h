// A fake behind the runtime seam (src/runtime/runtime.h), for tests only: it wraps the real runtime and,
// before each session is created — that is, after the load stage verified the artifacts and kept their
// bytes, and before those bytes reach the runtime — writes "verified" to the file named by
// NNX_TEST_PAUSE_AFTER_VERIFY (a temporary file renamed into place, so it appears complete), says so on
// stderr, and waits until the test removes the file (at most 600 s; SIGINT/SIGTERM end the wait). A test
// swaps an artifact in that window to prove that the bytes hashed are the bytes executed, or signals the
// run while it is paused. With the variable unset it only forwards. Used by tests/tools/nnx_conformance_pausing.cc.
#pragma once

#include "runtime/runtime.h"

namespace nnx::fakes {

inline constexpr const char* kPauseVariable = "NNX_TEST_PAUSE_AFTER_VERIFY";

// The real opener, wrapped.
RuntimeOpener pausing_runtime_opener(RuntimeOpener real);

}  // namespace nnx::fakes
