// A module profile's precision (doc/profile-files.md, "Precision"; doc/record-format.md §10, "Precision"): the
// number format the exported graph computes in, a setting that makes a new export. `float32` is the default
// and writes exactly the records of before (no key anywhere); `float16-torch` exports the module converted by
// torch (`.half()`), `float16-graph` the float32 export converted by onnxconverter-common, `bfloat16` the
// module converted by torch (`.to(torch.bfloat16)`); every one keeps the graph's float inputs and outputs
// float32 (the worker, worker/nnx_worker_precision.py). A precision other than float32 is judged by its own
// tolerance, stated in the record (`tolerances.precision`), and the record also says which cases stay within
// the profile's float32 tolerance. The one rule of those names and tolerances, for the profile reader, the
// parity stage and the validator.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/tolerance_compare.h"

namespace nnx {

enum class Precision { float32, float16_torch, float16_graph, bfloat16 };

std::string_view precision_name(Precision precision);
std::optional<Precision> parse_precision(std::string_view name);
std::vector<std::string> precision_names();  // every name, float32 first

// The tolerance a precision other than float32 is judged by (nullopt for float32: the profile's own), and
// why that size (the record's `tolerances.precision.why`).
std::optional<Tolerance> precision_tolerance(Precision precision);
std::string precision_why(Precision precision);

}  // namespace nnx
