// When one intermediate value departs (value_departure.h).
#include "stages/value_departure.h"

#include <algorithm>
#include <cmath>


namespace nnx {
namespace {

bool is_floating(DType dtype) {
  switch (dtype) {
    case DType::float32:
    case DType::float64:
    case DType::float16:
    case DType::bfloat16: return true;
    case DType::int64:
    case DType::int32:
    case DType::boolean:
    case DType::int8:
    case DType::uint8: return false;
  }
  return false;
}

// How many elements a tensor of consistent bytes holds (every tensor here is: decoded, or the runtime's).
std::size_t elements(const Tensor& t) { return static_cast<std::size_t>(t.element_count().value_or(0)); }

// The largest |a - b| over the elements, infinity where exactly one of the two is not finite or both are
// infinite and differ; element by element, with no widened copy of either.
double largest_error(const Tensor& a, const Tensor& b) {
  double error = 0.0;
  const std::size_t n = std::min(elements(a), elements(b));
  for (std::size_t i = 0; i < n; ++i) {
    const double x = a.element(i), y = b.element(i);
    if (std::isfinite(x) != std::isfinite(y)) return INFINITY;
    if (!std::isfinite(x)) {
      if (std::isnan(x) != std::isnan(y) || (!std::isnan(x) && x != y)) return INFINITY;
      continue;
    }
    error = std::max(error, std::fabs(x - y));
  }
  return error;
}

nlohmann::json finite_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

std::string shape_of(const Tensor& t) {
  std::string out = std::string(dtype_name(t.dtype)) + " [";
  for (std::size_t i = 0; i < t.shape.size(); ++i) out += (i ? ", " : "") + std::to_string(t.shape[i]);
  return out + "]";
}

}  // namespace

double largest_magnitude(const Tensor& tensor) {
  double m = 0.0;
  for (std::size_t i = 0, n = elements(tensor); i < n; ++i) {
    const double v = tensor.element(i);
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  return m;
}

ValueDeparture value_departure(const Tensor& runtime, const Tensor& torch, const std::optional<Tensor>& oracle,
                               const DepartureScale& scale) {
  ValueDeparture out;
  if (runtime.shape != torch.shape) {
    out.departs = true;
    out.unlike = "ONNX Runtime gives " + shape_of(runtime) + ", PyTorch " + shape_of(torch);
    return out;
  }
  const bool with_oracle = oracle && oracle->shape == torch.shape && is_floating(torch.dtype);
  const Tensor& reference = with_oracle ? *oracle : torch;
  out.magnitude = largest_magnitude(reference);
  out.runtime_error = largest_error(runtime, reference);
  if (with_oracle) out.torch_error = largest_error(torch, reference);
  if (is_floating(torch.dtype) && is_floating(runtime.dtype)) {
    const double M = scale.outputs_magnitude > 0.0 ? scale.outputs_magnitude : 1.0;
    out.allowed = std::max(kTimesTorch * out.torch_error, scale.rtol * out.magnitude + scale.atol * out.magnitude / M);
  }
  out.departs = out.runtime_error > out.allowed;
  if (out.allowed > 0.0 && std::isfinite(out.runtime_error)) {
    out.margin = out.runtime_error / out.allowed;
  } else if (out.runtime_error == 0.0) {
    out.margin = 0.0;
  }
  return out;
}

nlohmann::json ValueDeparture::to_json() const {
  nlohmann::json out{{"departs", departs},
                     {"magnitude", finite_or_null(magnitude)},
                     {"runtime_error", finite_or_null(runtime_error)},
                     {"torch_error", finite_or_null(torch_error)},
                     {"allowed", finite_or_null(allowed)},
                     {"margin", margin ? finite_or_null(*margin) : nlohmann::json()}};
  if (!unlike.empty()) out["unlike"] = unlike;
  return out;
}

}  // namespace nnx
