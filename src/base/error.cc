#include "base/error.h"

#include <system_error>

#include "base/failure.h"
#include "base/interrupt.h"

namespace nnx {

std::string errno_text(int err) { return std::error_code(err, std::generic_category()).message(); }

Interrupted::Interrupted(int signal) : Error(ErrorKind::interrupted, "interrupted by " + signal_text(signal), signal) {}

int exit_code_of(const Error& error) {
  switch (error.kind()) {
    case ErrorKind::usage:
    case ErrorKind::folder_in_use:
    case ErrorKind::root_in_use: return kExitUsage;
    case ErrorKind::runtime_unavailable: return exit_code(FailureClass::missing_dependency);
    case ErrorKind::interrupted: return 128 + error.signal();
    case ErrorKind::refused:
    case ErrorKind::unreadable:
    case ErrorKind::io: return kExitError;
  }
  return kExitError;
}

std::string_view error_label(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage:
    case ErrorKind::folder_in_use:
    case ErrorKind::root_in_use: return "usage error";
    case ErrorKind::interrupted: return "interrupted";
    default: return "error";
  }
}

}  // namespace nnx
