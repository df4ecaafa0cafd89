#include "base/build_info.h"

namespace nnx {

std::string build_version() { return NNX_VERSION; }
std::string build_checkout_dir() { return NNX_SOURCE_DIR; }
std::string build_bundled_onnxruntime() { return NNX_BUNDLED_ORT; }

}  // namespace nnx
