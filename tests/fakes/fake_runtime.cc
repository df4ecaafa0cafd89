// Test fakes: the in-memory runtime and session (fake_runtime.h).
#include "fakes/fake_runtime.h"

#include <utility>

namespace nnx::fakes {

FakeSession::FakeSession(SessionAnswer answer, std::vector<std::string> providers)
    : answer_(std::move(answer)), providers_(std::move(providers)) {}

std::vector<Tensor> FakeSession::run(std::span<const Tensor> inputs) {
  runs_.push_back(inputs.empty() ? SessionRun{} : SessionRun{inputs.front().name, inputs.front().shape});
  return answer_(inputs);
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

}  // namespace nnx::fakes
