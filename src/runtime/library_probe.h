// Loading an ONNX Runtime library, and trying it first in a short-lived child (runtime/onnx_runtime.h;
// doc/architecture.md, "Opening ONNX Runtime").
//
// `load_library(path)` dlopens the library (RTLD_NOW | RTLD_LOCAL) in this process and asks its
// OrtGetApiBase for the version string: the handle, the API base and the version, or a problem (dlopen's
// own words, "does not export OrtGetApiBase", "OrtGetApiBase() gave no API base", "gives no version
// string (GetVersionString() returned NULL)"), the handle then closed.
//
// `probe_problem(path)`: a library's constructors run inside dlopen, where no check of the file can stop
// them crashing, ending the process or blocking. So, unless the library is already loaded here, it is
// first loaded by `load_library` in a forked child (every descriptor but its answer pipe closed, SIGINT and
// SIGTERM at their default) that writes what it found and exits; the parent waits at most
// kProbeSeconds. The problem when the child died by a signal, called exit (its own on_exit handler, run
// first, answers the status) or _exit before answering, did not answer in time (it is killed), or answered
// a problem; nothing when it loaded.
#pragma once

#include <optional>
#include <string>

struct OrtApiBase;

namespace nnx {

inline constexpr int kProbeSeconds = 10;

struct LoadedLibrary {
  void* handle = nullptr;  // null when `problem` is set
  const OrtApiBase* base = nullptr;
  void* get_api_base = nullptr;  // the address of OrtGetApiBase (dladdr names the file from it)
  std::string version;
  std::string problem;
};

LoadedLibrary load_library(const std::string& path);

std::optional<std::string> probe_problem(const std::string& path);

}  // namespace nnx
