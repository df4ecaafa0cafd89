// Files a run publishes (reports) are written atomically: a temporary file in the same folder, written,
// flushed, fsynced and renamed into place, so a reader sees the old file or the new one, never a mix, and a
// failure leaves nothing behind. Only a regular file or a new file is written (doc/architecture.md, "Output
// paths"): `require_file_or_new` refuses, with a UsageError naming the path, what it is and the way out, a
// path that exists (followed through symlinks) as a folder, FIFO, device or socket, and leaves the node
// untouched; both functions below apply it. `require_writable_file_path` checks, before a run starts, that
// the file could be written there (that rule, then a folder that cannot be created or written is a
// ConformanceError naming the OS error): a probe file is made with mkstemp and removed. How an output may
// relate to the command's inputs, roots and other outputs is artifacts/output_paths.h.
#pragma once

#include <filesystem>
#include <string>

namespace nnx {

// Writes `text` to `path` atomically (parents created). Throws WriteError naming the OS error, UsageError
// for a path that is not a regular file (require_file_or_new).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

// `label` names the path in the message ("--html", "the report path").
void require_file_or_new(const std::filesystem::path& path, const std::string& label = "the report path");
void require_writable_file_path(const std::filesystem::path& path, const std::string& label = "the report path");

}  // namespace nnx
