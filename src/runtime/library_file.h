// What a library file must be before it is handed to dlopen (runtime/onnx_runtime.h; doc/architecture.md,
// "Opening ONNX Runtime"): dlopen maps a file and runs its code, so a file that is not a whole shared object
// of this machine must be refused first — a truncated one is a SIGBUS when its pages are touched, a FIFO
// blocks the open for ever.
//
// `library_file_problem(path)` reads only the file's headers and dynamic symbol table (pread, never mmap, so
// a file truncated while it is read is a short read, not a signal) and says why it cannot be loaded, or
// nothing: a regular file (a link is followed, as dlopen does; not a FIFO, device or socket), readable, an
// ELF shared object of this machine (class, byte order, e_machine), complete (every program header's and
// section's bytes inside the file), whose dynamic symbol table defines `OrtGetApiBase`. A name without a '/'
// is the system loader's to find, and is not checked here.
#pragma once

#include <optional>
#include <string>

namespace nnx {

std::optional<std::string> library_file_problem(const std::string& path);

}  // namespace nnx
