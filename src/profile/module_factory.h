// A module profile's factory, the one rule the profile check and the worker's request check share
// (doc/record-format.md §10; worker/nnx_worker_module_request.py accepts exactly what this accepts): `TARGET:FACTORY`,
// split at the last colon. FACTORY is an ASCII identifier ([A-Za-z_][A-Za-z0-9_]*). TARGET is either a path
// ending in `.py` (any characters but NUL, spaces and colons included) that names a regular file, or
// `package.module` (ASCII identifiers joined by dots). `factory_problems` names every violation, seen without
// importing anything; a relative FILE.py is looked up from the current folder. A FILE.py that binds the
// factory's name nowhere (profile/python_names.h: no def, class, assignment or import of it, read without
// running the file) is refused with the nearest names it binds; a name it binds is the worker's to judge,
// as is a package.module factory's (its file is found only by importing).
//
// The one path rule (doc/record-format.md §10, "The factory's file"): a profile file's relative FILE.py is
// relative to the profile file's folder (`factory_resolved_against` makes it absolute as the file is read;
// a profile given in Python has no file: the current folder); a record written to a report states it
// relative to the report's folder (`factory_relative_to`; a record with no report file, Python's
// run_profile, states it as the profile gives it). A package factory is left as it is by both.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace nnx {

std::vector<std::string> factory_problems(const std::string& factory);

// Whether `word` is an ASCII Python identifier ([A-Za-z_][A-Za-z0-9_]*), the rule for a factory's name and for
// a forward parameter an imported file's input is bound to.
bool is_identifier(std::string_view word);

// `factory` with a relative FILE.py made `folder / FILE.py` (absolute, lexically normal); else unchanged.
std::string factory_resolved_against(const std::string& factory, const std::filesystem::path& folder);

// `factory` with its FILE.py written relative to `folder` ('/'-separated; both made absolute first, no link
// followed); else unchanged.
std::string factory_relative_to(const std::string& factory, const std::filesystem::path& folder);

}  // namespace nnx
