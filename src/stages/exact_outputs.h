// The parity of a module record's integer and bool outputs, and of an output whose dtype is not PyTorch's
// (doc/record-format.md §10, "Integer and bool outputs"). An integer or bool output compares exactly
// (base/exact_compare.h): its entry in the parity detail's `exact_outputs` states the elements, how many
// differ and how many of those are near ties by the float64 oracle's scores (null: the oracle cannot tell);
// it adds nothing to the case's max_abs_error / max_rel_error, and the case's margin is null (infinite) when a
// difference counts. A counted difference departs the runtime (the oracle's scores separate the candidates),
// or both sides when the oracle cannot tell. An output the runtime returns in another dtype than PyTorch's
// is an entry of `dtype_differs` (the runtime's and the reference's dtype), the runtime's departure.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/exact_compare.h"
#include "base/tensor.h"

namespace nnx {

struct ExactVerdict {
  ExactComparison comparison;
  nlohmann::json entry;  // the `exact_outputs` entry
};

ExactVerdict judge_exact_output(const std::string& case_name, const Tensor& actual, const Tensor& reference,
                                const std::optional<Tensor>& scores, const Tolerance& tolerance);

// The `dtype_differs` entry of an output the runtime returned as `actual`, PyTorch as `reference`.
nlohmann::json dtype_finding(const std::string& case_name, const std::string& output, DType actual, DType reference);

}  // namespace nnx
