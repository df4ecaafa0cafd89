// ONNX Runtime, opened at run time (dlopen) and used through its C++ wrapper (RAII over the C API).
//
// Library search order (the first that applies is used; an explicit choice that fails is not replaced):
//   1. an explicit path (the command line's --onnxruntime PATH),
//   2. the environment variable NNX_ONNXRUNTIME_LIBRARY,
//   3. the bootstrap's copy (.deps/onnxruntime/lib/libonnxruntime.so.1 of the build's checkout),
//   4. the system loader's "libonnxruntime.so.1".
// A library that cannot be found, opened, or does not offer C API version ORT_API_VERSION (21) throws
// RuntimeUnavailable: the dependencies stage turns it into missing-dependency (exit 10), never a crash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace nnx {

class RuntimeUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An ONNX Runtime failure with its OrtErrorCode (ORT_INVALID_ARGUMENT = 2, ...).
class RuntimeFailure : public std::runtime_error {
 public:
  RuntimeFailure(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }
  bool invalid_argument() const;
  std::string code_name() const;

 private:
  int code_;
};

class OrtLibrary {
 public:
  // Opens the library by the search order above; throws RuntimeUnavailable naming each path tried.
  static std::shared_ptr<OrtLibrary> open(const std::optional<std::filesystem::path>& explicit_path = {});
  ~OrtLibrary();

  const std::string& version() const { return version_; }
  const std::string& location() const { return location_; }
  std::vector<std::string> available_providers() const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  OrtLibrary() = default;
  std::unique_ptr<Impl> impl_;
  std::string version_;
  std::string location_;
};

// The session options of record-format §4: one intra-op and one inter-op thread, ORT_ENABLE_ALL.
struct SessionSettings {
  std::string provider = "CPUExecutionProvider";
  int intra_op_num_threads = 1;
  int inter_op_num_threads = 1;
};

// Bytes an external-data location resolves to (already verified against the record).
struct ExternalFile {
  std::string location;
  std::span<const std::byte> bytes;
};

struct TensorOutput {
  std::string name;
  std::string dtype;                 // lowercase ONNX element type ("float", "double", ...)
  std::vector<std::int64_t> shape;
  std::vector<float> values;         // filled only when dtype == "float"
};

class InferenceSession {
 public:
  // Creates a session from bytes in memory (the model and its external data), never from a path, so the
  // bytes executed are the bytes verified. Throws RuntimeFailure.
  InferenceSession(std::shared_ptr<OrtLibrary> library, std::span<const std::byte> model,
                   const std::vector<ExternalFile>& external, const SessionSettings& settings);
  ~InferenceSession();
  InferenceSession(const InferenceSession&) = delete;
  InferenceSession& operator=(const InferenceSession&) = delete;

  // The providers the session runs on, the declared one first (CPU is the fallback of every other).
  const std::vector<std::string>& providers() const { return providers_; }
  std::vector<std::string> input_names() const;
  std::vector<std::string> output_names() const;

  // Runs one float32 input; every output is returned. Throws RuntimeFailure with ORT's error code.
  std::vector<TensorOutput> run(const std::string& input_name, std::span<const float> values,
                                const std::vector<std::int64_t>& shape);

 private:
  struct Impl;
  std::shared_ptr<OrtLibrary> library_;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> providers_;
};

}  // namespace nnx
