// A module profile's factory, the one rule the profile check and the worker's request check share
// (doc/record-format.md §10; worker/nnx_worker_module.py accepts exactly what this accepts): `TARGET:FACTORY`,
// split at the last colon. FACTORY is an ASCII identifier ([A-Za-z_][A-Za-z0-9_]*). TARGET is either a path
// ending in `.py` (any characters but NUL, spaces and colons included) that names a regular file, or
// `package.module` (ASCII identifiers joined by dots). `factory_problems` names every violation, seen without
// importing anything.
#pragma once

#include <string>
#include <vector>

namespace nnx {

std::vector<std::string> factory_problems(const std::string& factory);

}  // namespace nnx
