// The files this process's code was loaded from (doc/install.md, "What the wheel holds": an installed binary
// and module find what the wheel put beside them, and no path of the checkout they were built from).
//
// `executable_file()`: the running executable (/proc/self/exe), or an empty path when it cannot be read.
// `file_holding(code)`: the executable or shared object that holds the code at `code` (dladdr): the name it
// was opened by when that is absolute, else (the executable's name is its argv[0]) `executable_file()`;
// empty when neither is known.
#pragma once

#include <filesystem>

namespace nnx {

std::filesystem::path executable_file();

std::filesystem::path file_holding(const void* code);

}  // namespace nnx
