// When one intermediate value departs (doc/localisation.md, "When a value departs"): the documented test
// localisation names the first departing node by, scaled to the value's magnitude rather than the final
// outputs' atol taken literally. For a value with ONNX Runtime's `runtime`, the reference's `torch` (PyTorch's;
// for a data-only record ONNX's reference evaluator's, for a matrix's parting the newest release's) and, when
// the float64 copy gave it, the `oracle`:
//   reference  the oracle where there is one, else `torch`;
//   m          the largest finite |reference|;
//   e_r        the largest |runtime - reference|;   e_t  the largest |torch - oracle| (0 without an oracle);
//   allowed    max(kTimesTorch * e_t, rtol * m + atol * m / M), M the largest |reference| of the case's
//              final outputs (atol judged those, so it scales with the value);
//   departs    e_r > allowed; an element finite in the reference and not in the runtime, or the other way
//              round, departs; a value of another shape departs, said why; integer and bool values depart
//              on any difference (allowed 0).
// `margin` is e_r / allowed (null when allowed is 0 and the value differs). ONNX Runtime no more than
// kTimesTorch times as far from the oracle as the reference is never departs: both are float32, and which of two
// equally good answers a tolerance accepts is not the runtime's fault.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/tensor.h"

namespace nnx {

inline constexpr double kTimesTorch = 8.0;

struct DepartureScale {
  double rtol = 0.0;
  double atol = 0.0;
  double outputs_magnitude = 1.0;  // M
};

struct ValueDeparture {
  bool departs = false;
  double magnitude = 0.0;      // m
  double runtime_error = 0.0;  // e_r
  double torch_error = 0.0;    // e_t
  double allowed = 0.0;
  std::optional<double> margin;
  std::string unlike;          // a shape or dtype that differs ("" when they agree)
  nlohmann::json to_json() const;
};

ValueDeparture value_departure(const Tensor& runtime, const Tensor& torch, const std::optional<Tensor>& oracle,
                               const DepartureScale& scale);

// The largest finite |x| of a tensor (0 for an empty one).
double largest_magnitude(const Tensor& tensor);

}  // namespace nnx
