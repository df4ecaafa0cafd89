// Reading a profile folder without ever following a link: every entry is opened relative to its parent
// folder's descriptor with O_NOFOLLOW; FIFOs, devices and sockets are reported, never opened for reading.
//
// `list_folder` walks the folder recursively (entries sorted, '/'-separated, symlinked folders listed but
// not entered), at most kMaxFolderDepth folders deep (doc/record-format.md §7: a deeper folder is an
// ArtifactIoError naming it, never a stack overflow or a descriptor per level without end). `hash_file`
// streams one regular file through SHA-256 in fixed-size chunks, refusing a file larger than an expected size
// before reading it, and optionally keeps the bytes it hashed.
// Unreadable files or folders throw ArtifactIoError naming the OS error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.h"

namespace nnx {


// The most folders a profile folder's entries may lie below it (an export writes one or two levels).
inline constexpr std::size_t kMaxFolderDepth = 64;

enum class EntryKind { regular, directory, symlink, other };

struct FolderEntry {
  std::string path;  // relative, '/'-separated
  EntryKind kind;
};

// Throws ArtifactIoError when `folder` is missing, unreadable, a symlink or not a folder.
std::vector<FolderEntry> list_folder(const std::filesystem::path& folder);

struct FileDigest {
  enum class Status { ok, missing, symlink, not_regular, too_large } status = Status::ok;
  std::uint64_t bytes = 0;
  std::string sha256;
  std::vector<std::byte> contents;  // only when asked to keep them
};

// `relative` must be a normalised artifact path. When `max_bytes` is set, a larger file is reported as
// too_large without being read.
FileDigest hash_file(const std::filesystem::path& folder, const std::string& relative, bool keep_contents,
                     std::optional<std::uint64_t> max_bytes = std::nullopt);

// A folder opened once (never through a link; ArtifactIoError as list_folder), then listed and its files
// hashed relative to that one descriptor: the folder is resolved once for everything a verify reads.
class OpenFolder {
 public:
  explicit OpenFolder(const std::filesystem::path& folder);
  ~OpenFolder();
  OpenFolder(const OpenFolder&) = delete;
  OpenFolder& operator=(const OpenFolder&) = delete;

  std::vector<FolderEntry> list() const;  // as list_folder
  FileDigest hash(const std::string& relative, bool keep_contents,
                  std::optional<std::uint64_t> max_bytes = std::nullopt) const;  // as hash_file

 private:
  std::filesystem::path folder_;
  int fd_;
  mutable bool listed_ = false;  // read before: rewind first
};

}  // namespace nnx
