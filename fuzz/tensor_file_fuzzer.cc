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
  namespace py = pybind11;
  static py::module_ harness = nnx_fuzz::python_module("tensor_file_fuzzer", "tensor_file_harness");
  static py::object one = harness.attr("one");
  try {
    nnx_fuzz::count_python_edges(one(py::bytes(reinterpret_cast<const char*>(data), size)));
  } catch (const py::error_already_set& e) {
    nnx_fuzz::python_finding("tensor_file_fuzzer", e.what());
  }
  return 0;
}
