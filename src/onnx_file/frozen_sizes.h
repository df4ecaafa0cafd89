// Sizes a graph holds as constants where a shape is computed (doc/record-format.md §10, `dims_in_graph`): a
// dimension declared dynamic whose export size sits in the shape operand of a Reshape, Expand, Tile or
// ConstantOfShape is frozen by that node, whatever the graph's input declares (the TorchScript exporter
// writes `int(x.shape[0])` as such a constant, and nn.TransformerEncoder's attention its sequence length).
// Not a Slice's bounds: they are indices, equal to a small export size by chance too often.
//
// `find_frozen_sizes` parses the model bytes (no external data is read) and, for each size asked, names the
// first node in graph order whose shape operand holds it: an int64/int32 initializer or Constant `value`
// of at most kShapeConstantMax elements, or such constants reached through Concat, Unsqueeze, Squeeze and
// Cast (up to kFoldDepth nodes up). A size below 2 is never reported: 0 and 1 are in too many shape
// constants to tell. It is a finding, not a proof: a constant that equals the export size by chance (a
// head count of 2 with an export batch of 2) is reported too; the cases that fail say which it is.
// Bytes that do not parse as a model throw ConformanceError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace nnx {

inline constexpr std::size_t kShapeConstantMax = 16;
inline constexpr int kFoldDepth = 3;

struct FrozenSize {
  std::string node;     // the node's name as the file writes it ("" when unnamed)
  std::string op_type;  // Reshape, Expand, Tile, ConstantOfShape
};

// For each size in `sizes` that a node freezes, that node.
std::map<std::int64_t, FrozenSize> find_frozen_sizes(std::span<const std::byte> model_bytes,
                                                     const std::vector<std::int64_t>& sizes);

}  // namespace nnx
