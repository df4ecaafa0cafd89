#include "base/build_info.h"

namespace nnx {

std::string build_version() { return NNX_VERSION; }
std::string build_checkout_dir() { return NNX_SOURCE_DIR; }
std::string build_bundled_onnxruntime() { return NNX_BUNDLED_ORT; }
std::string build_dependency_lock_sha256() { return NNX_DEPENDENCY_LOCK_SHA256; }

}  // namespace nnx
