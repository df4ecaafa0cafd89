// The float64 oracle of FeedFwdNN (model/reference_model.h, `forward_oracle`; doc/record-format.md §4;
// doc/reading-a-failure.md, "Reading the triangulation"): the same network computed in double precision from the same float32
// weights and input, row by row with plain loops (no BLAS), so that neither the runtime nor the float32
// reference can share its rounding. It exists to tell which side departs when parity fails.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/activation.h"
#include "model/feedfwd.h"

namespace nnx {

std::vector<double> FeedFwdNN::forward_oracle(std::span<const float> input, std::int64_t batch) const {
  const auto widths = config_.widths();
  if (batch < 0 || static_cast<std::int64_t>(input.size()) != batch * widths.front()) {
    throw std::invalid_argument("forward_oracle: input holds " + std::to_string(input.size()) +
                                " values, not batch x input_dim");
  }
  const Activation activation = parse_activation(config_.activation);
  const std::size_t layers = widths.size() - 1;
  const auto output_dim = static_cast<std::size_t>(widths.back());
  std::vector<double> output(static_cast<std::size_t>(batch) * output_dim);
  const std::int64_t widest = *std::max_element(widths.begin(), widths.end());
  std::vector<double> x(static_cast<std::size_t>(widest)), y(static_cast<std::size_t>(widest));
  for (std::int64_t r = 0; r < batch; ++r) {
    const float* row = input.data() + r * widths.front();
    std::copy(row, row + widths.front(), x.begin());
    for (std::size_t l = 0; l < layers; ++l) {
      const std::int64_t in = widths[l];
      const std::int64_t out = widths[l + 1];
      const float* weight = parameters_[2 * l].values.data();  // [out, in], row-major
      const float* bias = parameters_[2 * l + 1].values.data();
      for (std::int64_t o = 0; o < out; ++o) {
        double sum = bias[o];
        for (std::int64_t i = 0; i < in; ++i) sum += static_cast<double>(weight[o * in + i]) * x[i];
        y[o] = sum;
      }
      if (l + 1 < layers) apply_activation(activation, std::span<double>(y.data(), static_cast<std::size_t>(out)));
      std::swap(x, y);
    }
    std::copy(x.begin(), x.begin() + widths.back(), output.begin() + r * widths.back());
  }
  return output;
}

}  // namespace nnx
