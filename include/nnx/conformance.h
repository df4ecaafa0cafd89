// nnx-conformance from C++ (doc/cpp-api.md, "Using the core from C++"): validate, verify and execute a record or a
// report (doc/record-format.md §6–§8) inside your own program, with no Python. Installed by
// `cmake --install` with the static core; `find_package(nnx_conformance)` gives the target nnx::conformance.
//   validate  every rule of the format, no file but the JSON read; a report, a record or a runtime matrix
//             (`kind` says which);
//   verify    validate, then every artifact under `root` re-checked byte for byte (sha256 and size);
//             artifacts that do not verify, or cannot be read, are `failure` "hash-mismatch", exit code 14,
//             as `execute` records them (one verdict per problem, doc/record-format.md §7);
//   execute   verify, then load the model in ONNX Runtime (opened at run time: `onnxruntime_library`, else
//             NNX_ONNXRUNTIME_LIBRARY, else the checkout's copy, else the system loader; runtime/onnx_runtime.h)
//             and run parity again against the native C++ reference (or PyTorch's: ExecuteSettings); the new records (a report for a report) are returned and written to `output`
//             atomically when given (the output-path rule: a regular or new file, neither `file` nor inside
//             `root`; else a Refusal with exit 2, doc/architecture.md "Output paths"). Its exit code is the command line's (0 passed, 10..18 a failure class).
// Only standard types cross this header. A file that cannot be read or parsed, a root or profile folder that
// does not exist (exit 2), a folder that cannot be used or a runtime that cannot be opened throws
// nnx::conformance::Refusal with the command line's exit code.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace nnx::conformance {

class Refusal : public std::runtime_error {
 public:
  Refusal(const std::string& message, int exit_code) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

struct Verdict {
  bool ok = false;
  std::size_t records = 0;
  std::vector<std::string> problems;  // each prefixed with the record's profile
  std::string kind;                   // "a report (nnx.export-conformance/1)", "a runtime matrix (...)", ...
  std::string failure;                // "hash-mismatch" when artifacts did not verify, else ""
  int exit_code = 1;                  // the command line's: 0, 1 (invalid), 14 (hash-mismatch)
};

struct Execution {
  int exit_code = 1;
  std::vector<std::string> summary;  // one line per record, as the command line prints them
  std::string document;              // the re-executed record or report, JSON as the record writer writes it
};

struct ExecuteSettings {
  std::optional<std::filesystem::path> onnxruntime_library;
  std::optional<std::filesystem::path> output;
  // What parity compares with: "" (the default: each record's own, the C++ forward of an export record, the
  // stored outputs of a module record; no Python, none of the record's code), "native" (the same), "stored"
  // (a module record's stored outputs) or "torch" (PyTorch in the exporter worker: `worker_python` runs
  // `worker_script`, each by worker/PROTOCOL.md's search order when unset; a module record's factory is
  // imported after its file is checked against the record). Anything else is a Refusal (2).
  std::string reference;
  std::optional<std::filesystem::path> worker_python;
  std::optional<std::filesystem::path> worker_script;
};

// The version of the installed core ("0.1.0").
std::string version();

Verdict validate(const std::filesystem::path& file);
Verdict verify(const std::filesystem::path& file, const std::filesystem::path& root);
Execution execute(const std::filesystem::path& file, const std::filesystem::path& root,
                  const ExecuteSettings& settings = {});

// The exporter worker a torch-reference execute starts stays warm for the next call of this process, as in
// every front end (doc/architecture.md, "The worker's lifetime"): it stops after 120 s idle, at exit, or
// here. Idempotent; a later call starts a worker again.
void close_workers();

}  // namespace nnx::conformance
