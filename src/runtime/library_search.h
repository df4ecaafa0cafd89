// The ONNX Runtime library search order (runtime/onnx_runtime.h), in one place: which step applies and the
// files it tries, for `OnnxRuntime::open` and for the Python module, which only adds what Python alone can
// find (an installed onnxruntime wheel's library, at the loader's step: python/bindings.h). The layers:
// doc/architecture.md.
//
// `library_search(explicit_path, bundled)`: the first step that applies — the caller's path; else
// NNX_ONNXRUNTIME_LIBRARY; else the bootstrap's copy `bundled` when that file exists (then the loader's name
// after it); else the system loader's "libonnxruntime.so.1". An explicit choice is never replaced by a later
// step. `origin` is what a refusal names ("the caller", "NNX_ONNXRUNTIME_LIBRARY", or empty for a search).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace nnx {

enum class LibraryStep { caller, environment, bundled, loader };

struct LibrarySearch {
  LibraryStep step = LibraryStep::loader;
  std::vector<std::string> candidates;  // tried in order; the first that opens is used
  std::string origin;
};

inline constexpr const char* kLoaderLibraryName = "libonnxruntime.so.1";

LibrarySearch library_search(const std::optional<std::filesystem::path>& explicit_path, const std::string& bundled);

}  // namespace nnx
