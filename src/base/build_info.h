// What this build knows about itself: its version, the checkout it was built from (empty for a wheel:
// an installed copy belongs to no checkout), the bootstrap's ONNX Runtime copy (empty for a wheel) and the
// sha256 of the dependency lock the bootstrap installed from (requirements.lock; empty for a wheel).
// The values are compile definitions private to the core; everything else asks these functions.
#pragma once

#include <string>

namespace nnx {

std::string build_version();             // e.g. "0.1.0"
std::string build_checkout_dir();        // "" when none
std::string build_bundled_onnxruntime();  // "" when none
std::string build_dependency_lock_sha256();  // 64 lowercase hex digits, "" when none

}  // namespace nnx
