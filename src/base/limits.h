// The bounds every profile and record must respect (doc/record-format.md §1): the format's own numbers,
// shared by the model config, the profile, the strict field reader and the validator.
#pragma once

#include <cstdint>

namespace nnx::limits {

inline constexpr std::int64_t kMaxUnits = 65536;          // per layer, per batch, export_batch, opset_version
inline constexpr std::int64_t kMaxHiddenLayers = 64;
inline constexpr std::int64_t kMaxWeights = std::int64_t{1} << 24;       // sum of a*b+b over consecutive widths
inline constexpr std::int64_t kMaxLayerValues = std::int64_t{1} << 24;   // max batch * widest layer
inline constexpr std::int64_t kMaxBatches = 64;
inline constexpr std::int64_t kMaxCaseWidth = kMaxUnits + 1;             // the refusal case is input_dim + 1 wide
inline constexpr std::int64_t kMaxCaseValues = std::int64_t{1} << 24;    // a case shape's product
inline constexpr std::uint64_t kMaxSeed = std::uint64_t{1} << 63;        // seeds lie in [0, 2^63)

}  // namespace nnx::limits
