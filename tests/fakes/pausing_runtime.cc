#include "fakes/pausing_runtime.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "base/interrupt.h"

namespace nnx::fakes {
namespace {

void pause_if_asked() {
  const char* value = std::getenv(kPauseVariable);
  if (value == nullptr || *value == '\0') return;
  const std::filesystem::path path = value;
  const std::filesystem::path part = path.string() + ".part";
  { std::ofstream(part, std::ios::trunc) << "verified\n"; }
  std::error_code ec;
  std::filesystem::rename(part, path, ec);
  std::cerr << "nnx-conformance (test tool): paused after verifying the artifacts; "
            << (ec ? "cannot write " + path.string() + ": " + ec.message() : "remove " + path.string() + " to go on")
            << std::endl;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(600);
  while (!ec && std::filesystem::exists(path, ec) && std::chrono::steady_clock::now() < deadline &&
         interrupt_signal() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

class PausingRuntime : public Runtime {
 public:
  explicit PausingRuntime(std::shared_ptr<Runtime> real) : real_(std::move(real)) {}
  std::string name() const override { return real_->name(); }
  std::string version() const override { return real_->version(); }
  std::string location() const override { return real_->location(); }
  std::vector<std::string> available_providers() const override { return real_->available_providers(); }
  std::unique_ptr<Session> create_session(std::span<const std::byte> model, const std::vector<ExternalFile>& external,
                                          const SessionSettings& settings) override {
    pause_if_asked();
    return real_->create_session(model, external, settings);
  }

 private:
  std::shared_ptr<Runtime> real_;
};

}  // namespace

RuntimeOpener pausing_runtime_opener(RuntimeOpener real) {
  return [real = std::move(real)](const std::string& name, const std::optional<std::filesystem::path>& library) {
    return std::make_shared<PausingRuntime>(real(name, library));
  };
}

}  // namespace nnx::fakes
