// The host a runtime matrix cell ran on (doc/runtime-matrix.md, "The document"): what can change the numbers ONNX
// Runtime computes from the same bytes besides the release, recorded beside each cell, never inside a record:
// the CPU's model and its flags (the instruction sets a kernel may choose, from /proc/cpuinfo), the OS (the
// PRETTY_NAME of /etc/os-release), the kernel release and machine (uname) and the C library (glibc's version).
// Read from the local files only; nothing is looked up or sent. A fact the host does not give is "".
// `host_differences` says in words how two hosts differ (each fact that differs; the flags only one has), ""
// when they are alike: matrix-merge says it before it compares parts (matrix/run_matrix.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnx {

struct HostFacts {
  std::string cpu;                     // /proc/cpuinfo "model name" of the first processor
  std::vector<std::string> cpu_flags;  // its "flags", sorted, each once
  std::string os;                      // /etc/os-release PRETTY_NAME
  std::string kernel;                  // uname release
  std::string machine;                 // uname machine
  std::string libc;                    // "glibc <version>"

  nlohmann::json to_json() const;
  // Strict: an object with exactly the keys to_json writes, each of its type; ConformanceError naming `where`.
  static HostFacts from_json(const nlohmann::json& value, const std::string& where);
  bool operator==(const HostFacts&) const = default;
};

// This machine's facts.
HostFacts this_host();

// The facts a /proc/cpuinfo text and an /etc/os-release text give (the rest left empty): the reading rule.
HostFacts host_from_texts(std::string_view cpuinfo, std::string_view os_release);

std::string host_differences(const HostFacts& a, const HostFacts& b);

}  // namespace nnx
