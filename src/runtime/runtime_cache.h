// Where `make runtimes` (scripts/fetch_runtimes.py, pins in scripts/runtimes.lock) leaves each ONNX Runtime
// release it checked: $NNX_CACHE/runtimes/<version>/libonnxruntime.so.<version>, NNX_CACHE defaulting to
// ~/.cache/nnx-conformance (doc/runtime-matrix.md, "Another release:
// `execute --onnxruntime`"). Nothing is downloaded here: a version that is not in
// the cache is a usage error naming the make command that fetches it.
#pragma once

#include <filesystem>
#include <string>

namespace nnx {

// The cached library of ONNX Runtime `version` (X.Y.Z). Throws UsageError for a malformed version or one
// that is not in the cache (the message names the path looked at and `make runtimes ORT_VERSIONS=X.Y.Z`).
std::filesystem::path cached_runtime_library(const std::string& version);

}  // namespace nnx
