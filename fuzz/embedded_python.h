// The interpreter a Python-embedding libFuzzer target runs in (fuzz/python_json_fuzzer.cc,
// fuzz/worker_request_fuzzer.cc, fuzz/tensor_file_fuzzer.cc; scripts/run_fuzzers.sh links libpython and sets PYTHONPATH to fuzz/ and
// worker/): started once, on the first input, with the GIL held by the fuzzing thread for the whole run.
//  * python_module(name): the imported module (its import failing is a finding, with the traceback);
//  * python_finding(what): prints the pending Python exception and traps (libFuzzer keeps the input);
//  * count_python_edges(edges): the Python line edges one input reached (fuzz/python_coverage.py), fed to
//    libFuzzer as extra counters, so inputs that reach new Python lines are kept (the interpreter itself is
//    not instrumented);
//  * run_harness(target, harness, data, size): the input's bytes given to the harness module's `one`, which
//    returns its edges (counted) or raises (a finding): the whole entry point of a target whose harness
//    takes the bytes as they are (fuzz/worker_request_fuzzer.cc, fuzz/tensor_file_fuzzer.cc).
// Included by exactly one source of a target (it defines the counters).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include <pybind11/embed.h>

namespace nnx_fuzz {

namespace py = pybind11;

inline constexpr std::size_t kPythonEdges = 1 << 16;
// libFuzzer reads every byte of this section as a coverage counter.
__attribute__((section("__libfuzzer_extra_counters"))) inline std::uint8_t python_edges[kPythonEdges];

[[noreturn]] inline void python_finding(const char* target, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", target, what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

inline py::module_ python_module(const char* target, const char* name) {
  static py::scoped_interpreter interpreter;
  try {
    return py::module_::import(name);
  } catch (const py::error_already_set& e) {
    python_finding(target, std::string("cannot import ") + name + ": " + e.what());
  }
}

inline void count_python_edges(const py::handle& edges) {
  for (const py::handle edge : edges) {
    std::uint8_t& counter = python_edges[edge.cast<std::size_t>() % kPythonEdges];
    if (counter != 0xff) ++counter;
  }
}

inline void run_harness(const char* target, const char* harness, const std::uint8_t* data, std::size_t size) {
  static py::object one = python_module(target, harness).attr("one");  // one harness per target binary
  try {
    count_python_edges(one(py::bytes(reinterpret_cast<const char*>(data), size)));
  } catch (const py::error_already_set& e) {
    python_finding(target, e.what());
  }
}

}  // namespace nnx_fuzz
