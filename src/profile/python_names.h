// The names a Python file binds, read without running it (doc/profile-files.md, "Errors"): what the profile
// check asks of a FILE.py factory before any worker starts (module_factory.h), so that a mistyped factory name
// is refused at once with the nearest names instead of after the worker's start.
//
// The rule, a scan of the file's tokens (comments and string literals skipped, brackets and backslashes
// joining lines, `;` splitting statements): a name is bound when anywhere in the file, at any indentation,
//   - it follows `def`, `class` or `as`, or lies between `for` and `in`, or precedes `:=`;
//   - an `import` or `from ... import` statement binds it (`import a.b` binds a, `x as y` binds y);
//   - it is a plain name (no `.` before it, no `.`, `(` or `[` after it) left of an `=` outside brackets.
// It over-approximates on purpose: a name it calls bound may still not be a top-level name (the worker then
// says so); a name it calls unbound is bound by none of Python's binding statements. `dynamic` is set when the
// file may bind names no scan sees (`import *`, `globals`, `vars`, `setattr`, `exec`, `__getattr__`,
// `__dict__`): then nothing is refused.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nnx {

struct PythonNames {
  std::vector<std::string> bound;  // in first-seen order, each once
  bool dynamic = false;
};

PythonNames names_bound_in(std::string_view source);

}  // namespace nnx
