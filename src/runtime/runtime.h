// The runtime seam: what the load and parity stages need from an inference runtime (doc/record-format.md
// §4 load and parity; doc/architecture.md, "Seams, and where a change goes").
//
// A Runtime creates Sessions from bytes in memory (the model and its external data, already verified
// against the record), never from a path, so the bytes executed are the bytes hashed. A Session runs one
// set of named, typed input tensors and returns every output as a named, typed tensor (base/tensor.h), for every
// model kind. Failures are RuntimeFailure carrying whether the runtime refused the input as an INVALID ARGUMENT
// (parity's `rejected`) and the runtime's own code name.
// `open_runtime` is the one place that maps a profile's runtime name to an implementation; a run is given
// a RuntimeOpener (default: open_runtime), which is where tests wrap the real runtime (tests/fakes/).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>


#include "base/error.h"
#include "base/record_vocabulary.h"
#include "base/tensor.h"

namespace nnx {

// The session options of doc/record-format.md §4: one intra-op and one inter-op thread, ORT_ENABLE_ALL. A
// record's session always has those; localisation (stages/localisation.h) also runs ORT_DISABLE_ALL, and the
// runtime takes ORT_ENABLE_BASIC and ORT_ENABLE_EXTENDED too (any other name is a RuntimeFailure).
struct SessionSettings {
  std::string provider = rf::runtime_key::kRequiredProvider;
  int intra_op_num_threads = 1;
  int inter_op_num_threads = 1;
  std::string graph_optimization_level = rf::session_key::kRequiredOptimizationLevel;
  // Session config entries (AddSessionConfigEntry), in key order; an entry the release does not know is its
  // own to refuse or ignore.
  std::vector<std::pair<std::string, std::string>> config;
  // Options given to `provider` when the session appends it (KEY, VALUE, in key order); one the provider refuses
  // is a RuntimeFailure quoting it. The CPU provider takes none (the stages never give it any).
  std::vector<std::pair<std::string, std::string>> provider_options;
  // Not in the record: how long one run may take before the runtime is told to stop (runtime/run_watchdog.h);
  // zero for no limit. The stages give it the run's or execute's per-case limit (StageContext::case_timeout).
  std::chrono::milliseconds run_timeout{0};
  // Not in the record: where the runtime writes the graph as it optimised it (localisation reads which
  // values survive: stages/localisation.h); nullopt writes nothing.
  std::optional<std::filesystem::path> optimized_model_path;
};

// Bytes an external-data location resolves to (already verified against the record).
struct ExternalFile {
  std::string location;  // exactly as the model writes it ("./w.bin")
  std::span<const std::byte> bytes;
};

// A runtime's failure: `invalid_argument` when it refused the input as an invalid argument.
class RuntimeFailure : public std::runtime_error {
 public:
  RuntimeFailure(bool invalid_argument, std::string code_name, const std::string& message)
      : std::runtime_error(message), invalid_argument_(invalid_argument), code_name_(std::move(code_name)) {}
  bool invalid_argument() const { return invalid_argument_; }
  const std::string& code_name() const { return code_name_; }

 private:
  bool invalid_argument_;
  std::string code_name_;
};

class Session {
 public:
  virtual ~Session() = default;
  // The providers the session runs on, the declared one first.
  virtual const std::vector<std::string>& providers() const = 0;
  // Runs the named inputs (each fed under its name); every output is returned, named, in the session's order.
  // An input or output of an element type base/tensor.h has no DType for is a RuntimeFailure
  // (UNSUPPORTED_TYPE); so is every failure of the runtime.
  virtual std::vector<Tensor> run(std::span<const Tensor> inputs) = 0;
  // The session's input names, in the graph's order.
  virtual std::vector<std::string> input_names() const = 0;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual std::string name() const = 0;      // the record's runtime.name, e.g. "onnxruntime"
  virtual std::string version() const = 0;   // e.g. "1.30.0"
  virtual std::string location() const = 0;  // the library file it was opened from
  // The execution providers this build of the runtime can run ("CPUExecutionProvider", ...): a profile
  // naming another is refused before anything runs (app/run_profiles.h).
  virtual std::vector<std::string> available_providers() const = 0;
  // Throws RuntimeFailure when the session cannot be created.
  virtual std::unique_ptr<Session> create_session(std::span<const std::byte> model,
                                                  const std::vector<ExternalFile>& external,
                                                  const SessionSettings& settings) = 0;
};

// The implementations (one .cc each): each opens its library from `library` when given, else by its own
// search order, and throws RuntimeUnavailable (exit 10) when it cannot.
std::shared_ptr<Runtime> open_onnx_runtime(const std::optional<std::filesystem::path>& library);  // onnx_runtime.cc

// Opens the runtime a record or profile names. ConformanceError for a name no implementation has.
inline std::shared_ptr<Runtime> open_runtime(const std::string& name,
                                             const std::optional<std::filesystem::path>& library) {
  if (name == "onnxruntime") return open_onnx_runtime(library);
  throw ConformanceError("no runtime named \"" + name + "\" (known: onnxruntime)");
}

using RuntimeOpener =
    std::function<std::shared_ptr<Runtime>(const std::string& name, const std::optional<std::filesystem::path>& library)>;

}  // namespace nnx
