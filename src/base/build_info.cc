#include "base/build_info.h"

// CMake defines it for this file alone (a new lock recompiles nothing else); other builds of the core (the
// fuzzers of scripts/run_fuzzers.sh) know no lock.
#ifndef NNX_DEPENDENCY_LOCK_SHA256
#define NNX_DEPENDENCY_LOCK_SHA256 ""
#endif

namespace nnx {

std::string build_version() { return NNX_VERSION; }
std::string build_checkout_dir() { return NNX_SOURCE_DIR; }
std::string build_bundled_onnxruntime() { return NNX_BUNDLED_ORT; }
std::string build_dependency_lock_sha256() { return NNX_DEPENDENCY_LOCK_SHA256; }

}  // namespace nnx
