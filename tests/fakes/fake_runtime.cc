// Test fakes: the in-memory runtime and session (fake_runtime.h).
#include "fakes/fake_runtime.h"

#include <cstring>
#include <utility>

namespace nnx::fakes {

FakeSession::FakeSession(SessionAnswer answer, std::vector<std::string> providers)
    : answer_(std::move(answer)), providers_(std::move(providers)) {}

std::vector<Tensor> FakeSession::run(std::span<const Tensor> inputs) {
  const Tensor& input = inputs.front();
  runs_.push_back({input.name, input.shape});
  std::vector<Tensor> out;
  for (const TensorOutput& o : answer_(input.name, input.float32_values(), input.shape)) {
    const auto dtype = o.dtype == "float" ? DType::float32 : DType::float64;
    Tensor t{o.name, dtype, o.shape, {}};
    if (dtype == DType::float32) {
      t = Tensor::float32(o.name, o.shape, o.values);
    } else {
      std::vector<double> widened(o.values.begin(), o.values.end());
      t.bytes.resize(widened.size() * sizeof(double));
      if (!widened.empty()) std::memcpy(t.bytes.data(), widened.data(), t.bytes.size());
    }
    out.push_back(std::move(t));
  }
  return out;
}

FakeRuntime::FakeRuntime(SessionAnswer answer, std::vector<std::string> providers,
                         std::optional<RuntimeFailure> refusal)
    : answer_(std::move(answer)), providers_(std::move(providers)), refusal_(std::move(refusal)) {}

std::unique_ptr<Session> FakeRuntime::create_session(std::span<const std::byte> model,
                                                     const std::vector<ExternalFile>& external,
                                                     const SessionSettings& settings) {
  SessionRequest request{{model.begin(), model.end()}, {}, settings};
  for (const auto& file : external) {
    request.external.emplace_back(file.location, std::vector<std::byte>(file.bytes.begin(), file.bytes.end()));
  }
  requests_.push_back(std::move(request));
  if (refusal_) throw *refusal_;
  return std::make_unique<FakeSession>(answer_, providers_);
}

TensorOutput float_output(std::string name, std::vector<std::int64_t> shape, std::vector<float> values) {
  return TensorOutput{std::move(name), "float", std::move(shape), std::move(values)};
}

}  // namespace nnx::fakes
