// libFuzzer target: the worker's request loop (worker/nnx_worker.py) as the worker reads its stdin, on any
// bytes: the input is what the core (or anything holding the pipe) writes, any number of lines. The Python
// side is fuzz/worker_request_harness.py: every request line the loop reads (the bytes a line's "frames"
// announces are its tensor frames) gets exactly one answer line of strict JSON, an object with a boolean
// "ok" (and a non-empty "error" when false); the loop never raises. Exports and
// imports do not run (torch, onnx and numpy are unimportable there; `dependencies` and the module ops are
// their request parsers). A Python exception is a finding: it is printed and the target traps.
// Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined; libpython).
#include <cstddef>
#include <cstdint>

#include "embedded_python.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nnx_fuzz::run_harness("worker_request_fuzzer", "worker_request_harness", data, size);
  return 0;
}
