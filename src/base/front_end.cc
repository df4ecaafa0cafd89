#include "base/front_end.h"

#include <atomic>

namespace nnx {
namespace {

std::atomic<FrontEnd> g_front_end{FrontEnd::command_line};

struct Spelling {
  std::string_view command_line;
  std::string_view python;
};

Spelling spelling(Argument argument) {
  switch (argument) {
    case Argument::force: return {"--force", "force=True"};
    case Argument::onnxruntime: return {"--onnxruntime PATH", "onnxruntime=PATH"};
    case Argument::jobs: return {"--jobs", "jobs"};
    case Argument::memory_limit: return {"--memory-limit MIB", ""};
    case Argument::matrix_runtimes:
      return {"--onnxruntime PATH or --onnxruntime-version X.Y.Z", "runtimes=[PATH or \"X.Y.Z\", ...]"};
    case Argument::matrix_library: return {"--onnxruntime", "runtimes entry"};
    case Argument::matrix_release: return {"--onnxruntime-version", "runtimes entry"};
  }
  return {"", ""};
}

}  // namespace

void set_front_end(FrontEnd front_end) { g_front_end.store(front_end); }
FrontEnd front_end() { return g_front_end.load(); }

std::string_view spelled(Argument argument) {
  const Spelling s = spelling(argument);
  return front_end() == FrontEnd::python ? s.python : s.command_line;
}

std::string hint(ErrorKind kind) {
  const bool python = front_end() == FrontEnd::python;
  const std::string force(spelled(Argument::force));
  const std::string library(spelled(Argument::onnxruntime));
  switch (kind) {
    case ErrorKind::folder_in_use:
      return python ? "; pass " + force + " to clear it" : "; use " + force + " to clear the chosen profiles' folders";
    case ErrorKind::runtime_unavailable:
      return "\n  (" + library + " names the library for this " + (python ? "call)" : "run)");
    case ErrorKind::interrupted:
      return python ? "" : ": the exporter worker was stopped and no report was written (an earlier report is unchanged)";
    default: return "";
  }
}

}  // namespace nnx
