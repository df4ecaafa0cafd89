// The words a message uses for what the caller can change, spelled once for each front end (doc/architecture.md,
// "Errors"): the command line says `--force`, Python `force=True`. The front end that owns the process says
// which it is once, before anything runs (`set_front_end`: cli_main for the command line, the default; nnx._core
// when it is imported); the core then writes `spelled(Argument::force)` where a message names an argument, and
// each front end appends `hint(kind)` to an error of that kind. No other file spells a flag or an argument in a
// message.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace nnx {

enum class FrontEnd { command_line, python };

// What a message may tell the caller to set.
enum class Argument {
  force,                // clear the chosen profiles' folders
  onnxruntime,          // the ONNX Runtime library of a run or an execute
  jobs,                 // profiles (run) or runtimes (matrix) at once
  memory_limit,         // what a run's input cases may cost in memory
  matrix_runtimes,      // the runtimes of a matrix, libraries or cached releases
  matrix_library,       // one library of a matrix
  matrix_release,       // one cached release of a matrix
};

void set_front_end(FrontEnd front_end);
FrontEnd front_end();

// The argument as the current front end spells it: "--onnxruntime PATH" or "onnxruntime=PATH"; "" where that
// front end has no such argument (Python has no memory limit).
std::string_view spelled(Argument argument);

// The current front end's hint for an error of this kind ("; use --force to clear ...", "; pass force=True to
// clear it"), "" when it has none.
std::string hint(ErrorKind kind);

}  // namespace nnx
