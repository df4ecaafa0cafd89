// libFuzzer target: the header reader of a module export's stored tensor files (worker/TENSORS.md, "Case
// tensors as files"; worker/nnx_worker_tensor_files.py `parse_header`), the worker's side of the channel that
// carries a module's case tensors as files, on any bytes. The Python side is fuzz/tensor_file_harness.py: the
// reader refuses with WireError or returns a header that keeps its promises (a known dtype, its data inside
// the file, the byte count its dims give, at most 64 MiB). A Python exception is a finding: it is printed and
// the target traps. Built and run by scripts/run_fuzzers.sh (clang, -fsanitize=fuzzer,address,undefined;
// libpython).
#include <cstddef>
#include <cstdint>

#include "embedded_python.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nnx_fuzz::run_harness("tensor_file_fuzzer", "tensor_file_harness", data, size);
  return 0;
}
