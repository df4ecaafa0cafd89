// The host a runtime matrix cell ran on (doc/runtime-matrix.md, "The document"): what can change the numbers ONNX
// Runtime computes from the same bytes besides the release, recorded beside each cell, never inside a record:
// the CPU's model and its flags (the instruction sets a kernel may choose, from /proc/cpuinfo), the OS (the
// PRETTY_NAME of /etc/os-release), the kernel release and machine (uname), the C library (glibc's version) and
// the environment variables that change how the runtime's kernels compute (kNumericEnvironment: thread pools of
// OpenMP, MKL, OpenBLAS and TBB that a provider may use, MKL's reproducibility and instruction-set choices), each
// one set with its value. Read from the local files and this process's environment only; nothing is looked up or
// sent. A fact the host does not give is "". A document made before the environment was recorded has none (nullopt).
// `host_differences` says in words how two hosts differ (each fact that differs; the flags only one has), ""
// when they are alike: matrix-merge says it before it compares parts (matrix/run_matrix.h).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

// The environment variables a host records when set (doc/runtime-matrix.md, "The document").
inline constexpr std::array<const char*, 10> kNumericEnvironment = {
    "OMP_NUM_THREADS", "OMP_PROC_BIND",  "OMP_WAIT_POLICY",         "MKL_NUM_THREADS", "MKL_CBWR",
    "MKL_ENABLE_INSTRUCTIONS", "MKL_DYNAMIC", "OPENBLAS_NUM_THREADS", "TBB_NUM_THREADS", "KMP_AFFINITY"};

struct HostFacts {
  std::string cpu;                     // /proc/cpuinfo "model name" of the first processor
  std::vector<std::string> cpu_flags;  // its "flags", sorted, each once
  std::string os;                      // /etc/os-release PRETTY_NAME
  std::string kernel;                  // uname release
  std::string machine;                 // uname machine
  std::string libc;                    // "glibc <version>"
  // Each variable of kNumericEnvironment set in the process, with its value; nullopt: not recorded (a document
  // made before it was).
  std::optional<std::map<std::string, std::string>> environment;

  nlohmann::json to_json() const;
  // Strict: an object with exactly the keys to_json writes, each of its type; ConformanceError naming `where`.
  static HostFacts from_json(const nlohmann::json& value, const std::string& where);
  bool operator==(const HostFacts&) const = default;
};

// This machine's facts; `environment` (name -> value or null) is this process's.
HostFacts this_host();
std::map<std::string, std::string> numeric_environment(const std::function<const char*(const char*)>& environment);

// The facts a /proc/cpuinfo text and an /etc/os-release text give (the rest left empty): the reading rule.
HostFacts host_from_texts(std::string_view cpuinfo, std::string_view os_release);

std::string host_differences(const HostFacts& a, const HostFacts& b);

}  // namespace nnx
