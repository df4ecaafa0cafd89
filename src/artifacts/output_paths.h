// The output-path rule (doc/architecture.md, "Output paths"), one place for every command and front end
// that writes a file: the command line's verbs, the C++ API (src/api/), the Python API (src/python/).
//
// `check_output_paths` refuses, before anything runs or is written, with a UsageError (exit 2) that names
// the path, what it collides with and the way out: an output that exists as anything but a regular file
// (base/atomic_file.h require_file_or_new: a folder, FIFO, device or socket is left untouched); an output
// that is one of the command's inputs; one that is inside (or is) an artifacts root the command reads or
// writes, so an artifact is never overwritten and no stray file lands in a profile folder; and two outputs
// that are one file. Paths are compared resolved (`resolved_path`: symlinks and ".." of the part that
// exists, so `new/../x` is `x`), and existing files also by device and inode (a hard link, a bind mount).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nnx {

// A path with the words that name it in a message: "--html", "the report path", "FILE".
struct NamedPath {
  std::string label;
  std::filesystem::path path;
};

// What one command reads and writes.
struct PathUse {
  std::vector<NamedPath> outputs;  // files it writes
  std::vector<NamedPath> inputs;   // files it reads
  std::vector<NamedPath> roots;    // artifacts roots it reads or writes
};

void check_output_paths(const PathUse& use);

// The absolute path with every existing component resolved (symlinks followed, ".." applied to what is
// there); the components that do not exist yet are appended as they would be created.
std::filesystem::path resolved_path(const std::filesystem::path& path);

// True when `path` is `folder` or below it (both resolved; or one of path's existing folders is `folder`'s
// inode).
bool is_within(const std::filesystem::path& path, const std::filesystem::path& folder);

}  // namespace nnx
