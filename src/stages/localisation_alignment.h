// PyTorch's values aligned with the ONNX graph's (doc/localisation.md, "Alignment"):
// - granularity "node" (a dynamo export): an FX node's value is the ONNX value of the same name, the name the
//   dynamo exporter gives it, or, for a value that is one of the graph's outputs, the graph output at its
//   position (the exporter names it after the output); one no node writes is left out, saying into which node
//   the exporter folded it (the node whose `pkg.torch.onnx.fx_node` reads it, with its optimiser's rules) or
//   that no node reads it.
// - granularity "module" (a TorchScript export, which keeps only scopes): a submodule's output is the last
//   value its scope writes that is read outside the scope or is a graph output; a node's scope is its name's
//   path ("/layer1/layer1.0/conv1/Conv" → layer1.0.conv1, each part joined to the one before unless it
//   already begins with it). A submodule no node's scope names is left out ("no node in its scope"). The
//   module's own outputs are the graph's outputs at their positions.
// A value two PyTorch values align with keeps the first. ONNX values no PyTorch value aligns with are counted
// (intermediate values the exporter made inside one PyTorch operation or module).
#pragma once

#include "stages/localisation_internal.h"

namespace nnx::localisation {

Alignment align(const GraphOutline& outline, const ReferenceValues& torch);

// The module path a TorchScript node name's scope spells ("" when it has none).
std::string scope_path(const std::string& node_name);

}  // namespace nnx::localisation
