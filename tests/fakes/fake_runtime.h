// Test fakes (not product code): a Runtime and a Session behind the runtime seam (src/runtime/runtime.h),
// in memory, for the units that drive the load and parity stages (stages/stages.h) without ONNX Runtime.
// The session answers each run with what the test's `answer` returns (or throws: a RuntimeFailure is the
// runtime's refusal or error); the runtime hands out such a session, or refuses with the failure it is
// given, and keeps what it was asked (the model bytes and external files), so that a test can see that
// nothing was loaded, or that the bytes loaded are the bytes verified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace nnx::fakes {

// One run: the named, typed inputs in; every output out, named and typed (as Session::run).
using SessionAnswer = std::function<std::vector<Tensor>(std::span<const Tensor> inputs)>;

struct SessionRun {  // the first input's name and shape
  std::string input_name;
  std::vector<std::int64_t> shape;
};

class FakeSession : public Session {
 public:
  FakeSession(SessionAnswer answer, std::vector<std::string> providers = {"CPUExecutionProvider"});
  const std::vector<std::string>& providers() const override { return providers_; }
  // The inputs are handed to the answer, whose tensors come back as they are.
  std::vector<Tensor> run(std::span<const Tensor> inputs) override;
  std::vector<std::string> input_names() const override { return {"features"}; }
  const std::vector<SessionRun>& runs() const { return runs_; }  // every run asked, in order

 private:
  SessionAnswer answer_;
  std::vector<std::string> providers_;
  std::vector<SessionRun> runs_;
};

// What FakeRuntime::create_session was given, once per call.
struct SessionRequest {
  std::vector<std::byte> model;
  std::vector<std::pair<std::string, std::vector<std::byte>>> external;  // location as given, bytes
  SessionSettings settings;
};

class FakeRuntime : public Runtime {
 public:
  // Sessions answer with `answer` on `providers`; with `refusal`, create_session throws it instead.
  explicit FakeRuntime(SessionAnswer answer, std::vector<std::string> providers = {"CPUExecutionProvider"},
                       std::optional<RuntimeFailure> refusal = std::nullopt);
  std::string name() const override { return "onnxruntime"; }
  std::string version() const override { return "0.0.0-fake"; }
  std::string location() const override { return "in-memory fake"; }
  std::vector<std::string> available_providers() const override { return providers_; }  // its sessions'
  std::unique_ptr<Session> create_session(std::span<const std::byte> model, const std::vector<ExternalFile>& external,
                                          const SessionSettings& settings) override;
  const std::vector<SessionRequest>& requests() const { return requests_; }

 private:
  SessionAnswer answer_;
  std::vector<std::string> providers_;
  std::optional<RuntimeFailure> refusal_;
  std::vector<SessionRequest> requests_;
};

}  // namespace nnx::fakes
