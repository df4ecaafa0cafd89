// Files a run publishes (reports) are written atomically: a temporary file in the same folder, written,
// flushed, fsynced and renamed into place, so a reader sees the old file or the new one, never a mix, and a
// failure leaves nothing behind. `require_writable_file_path` checks, before a run starts, that the file
// could be written there (refusing a path that is a folder with UsageError, and a folder that cannot be
// created or written with ConformanceError naming the OS error): a probe file is made with mkstemp and
// removed.
#pragma once

#include <filesystem>
#include <string>

namespace nnx {

// Writes `text` to `path` atomically (parents created). Throws WriteError naming the OS error.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

void require_writable_file_path(const std::filesystem::path& path);

}  // namespace nnx
