// ONNX Runtime behind the runtime seam (runtime/runtime.h): opened at run time (dlopen) and used through its
// C++ wrapper (RAII over the C API). Its own telemetry is turned off before the library is opened
// (runtime_telemetry.h); its own log lines are dropped, never printed (runtime_log.h).
//
// Library search order (the first that applies is used; an explicit choice that fails is not replaced):
//   1. an explicit path (the command line's --onnxruntime PATH),
//   2. the environment variable NNX_ONNXRUNTIME_LIBRARY,
//   3. the bootstrap's copy (.deps/onnxruntime/lib/libonnxruntime.so.1 of the build's checkout),
//   4. the system loader's "libonnxruntime.so.1"
// (the order is runtime/library_search.h's; the Python package finds an installed onnxruntime wheel's
// library at step 4's place and names it as the caller's path).
// The C API version used is the highest both the library (ONNX Runtime 1.x offers 1..x) and our headers
// (ORT_API_VERSION, 21) know, so every release from 1.16 (API 16) on loads; in-memory external initialisers
// need API 17 (1.17: under 1.16 a model with external data is that session's load-error). Each candidate
// file is checked (library_file.h) and tried in a child process (library_probe.h) before it is loaded here
// (doc/architecture.md, "Opening ONNX Runtime"). A library that cannot be found or opened, fails those
// checks, gives no version string, is older than 1.16, or does not offer the negotiated version throws
// RuntimeUnavailable: the dependencies stage turns it into missing-dependency (exit 10), never a crash.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace nnx {

class OnnxRuntime : public Runtime, public std::enable_shared_from_this<OnnxRuntime> {
 public:
  // Opens the library by the search order above; throws RuntimeUnavailable naming each path tried.
  static std::shared_ptr<OnnxRuntime> open(const std::optional<std::filesystem::path>& explicit_path = {});
  ~OnnxRuntime() override;

  std::string name() const override { return "onnxruntime"; }
  std::string version() const override { return version_; }
  std::string location() const override { return location_; }
  std::unique_ptr<Session> create_session(std::span<const std::byte> model, const std::vector<ExternalFile>& external,
                                          const SessionSettings& settings) override;

  // The providers the library lists (GetAvailableProviders) that this build can give a session: the CPU one,
  // and those ONNX Runtime's generic AppendExecutionProvider takes (a library may list CUDA and TensorRT,
  // which need calls of their own that this build does not make).
  std::vector<std::string> available_providers() const override;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  OnnxRuntime() = default;
  std::unique_ptr<Impl> impl_;
  std::string version_;
  std::string location_;
};

}  // namespace nnx
