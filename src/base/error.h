// The one error type of the core: `Error` carries what kind of refusal it is, and `exit_code_of` maps a
// kind to the command line's exit code in ONE place (doc/record-format.md §1, §8; doc/architecture.md,
// "Errors"). Like ONNX Runtime's Ort::Exception, callers catch `const Error&` and read `kind()`.
//
// The named classes below are that same type with a fixed kind (so a throw site says what happened and a
// front end may still catch one kind alone): nothing else derives from std::runtime_error for a refusal.
// Messages state the problem in the core's words; where one names what the caller can change, it spells it
// through base/front_end.h (`--force` on the command line, `force=True` in Python), which also holds each
// front end's hint per kind. A stage outcome is not an Error: stages record it (StageFailure in failure.h
// never leaves the stages layer).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace nnx {

enum class ErrorKind {
  refused,              // input that breaks a rule: a malformed record, an invalid profile (exit 1)
  usage,                // a bad request: an unknown profile, a path that cannot be used (exit 2)
  folder_in_use,        // a profile folder already holding files, with no permission to clear it (exit 2)
  root_in_use,          // another run holds the artifacts root (exit 2)
  runtime_unavailable,  // the runtime library cannot be opened (exit 10, missing-dependency)
  unreadable,           // an artifact or folder that cannot be read (exit 1)
  interrupted,          // SIGINT/SIGTERM ended the run (exit 128 + signal)
  io,                   // a file the run writes could not be written (exit 1)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, int signal = 0)
      : std::runtime_error(message), kind_(kind), signal_(signal) {}
  ErrorKind kind() const noexcept { return kind_; }
  // The signal of an `interrupted` error, else 0.
  int signal() const noexcept { return signal_; }

 private:
  ErrorKind kind_;
  int signal_;
};

// The exit code a front end returns for `error` (1, 2, 10, or 128 + signal).
int exit_code_of(const Error& error);
// "error", "usage error", ... — the word a front end prints before the message.
std::string_view error_label(ErrorKind kind);
// The system's text for the errno value `err` ("No such file or directory"), as strerror gives it.
std::string errno_text(int err);

struct ConformanceError : Error {
  explicit ConformanceError(const std::string& message) : Error(ErrorKind::refused, message) {}
};
struct UsageError : Error {
  explicit UsageError(const std::string& message, ErrorKind kind = ErrorKind::usage) : Error(kind, message) {}
};
struct FolderInUse : UsageError {
  explicit FolderInUse(const std::string& message) : UsageError(message, ErrorKind::folder_in_use) {}
};
struct RootInUse : UsageError {
  explicit RootInUse(const std::string& message) : UsageError(message, ErrorKind::root_in_use) {}
};
struct RuntimeUnavailable : Error {
  explicit RuntimeUnavailable(const std::string& message) : Error(ErrorKind::runtime_unavailable, message) {}
};
struct ArtifactIoError : Error {
  explicit ArtifactIoError(const std::string& message) : Error(ErrorKind::unreadable, message) {}
};
struct Interrupted : Error {
  explicit Interrupted(int signal);
};
struct WriteError : Error {
  explicit WriteError(const std::string& message) : Error(ErrorKind::io, message) {}
};

}  // namespace nnx
