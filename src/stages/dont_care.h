// Don't-care positions of a module record's outputs (doc/record-format.md §10, "Don't-care positions"): an
// input spec's `hides` names outputs whose positions the input's zeros hide — the positions an attention mask
// hides, which no user reads. An element of such an output is excluded from the comparison where the input (bool
// or integer) is 0 (false) at the element's leading indices: the output's shape must begin with the input's
// ([batch, seq] hides [batch, seq, vocab] row by row). Excluded elements are set to 0 in the runtime's, the
// reference's and the oracle's tensors alike, so they neither differ nor count as not finite; the parity detail
// states how many each case excluded. The rule is read from the record (its inputs' specs), so `execute` applies
// it as the run did.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"

namespace nnx {

// One output an input hides positions of.
struct HiddenOutput {
  std::string output;
  std::string input;
};

// Every (output, input) pair the record's input specs (`inputs`, InputSpec::to_json) name in `hides`.
std::vector<HiddenOutput> hidden_outputs(const nlohmann::json& input_specs);

// Sets to zero each element of `tensor` that `mask`'s zeros hide; the count hidden, or nullopt (nothing
// changed) when `tensor`'s shape does not begin with `mask`'s.
std::optional<std::int64_t> hide_positions(Tensor& tensor, const Tensor& mask);

}  // namespace nnx
