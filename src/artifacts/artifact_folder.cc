#include "artifacts/artifact_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "base/sha256.h"
#include "base/sha256_behind.h"

namespace nnx {
namespace {

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { if (fd_ >= 0) ::close(fd_); }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept { std::swap(fd_, o.fd_); return *this; }
  Fd(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { int f = fd_; fd_ = -1; return f; }

 private:
  int fd_;
};

std::string os_error(const std::string& what, int err) { return what + ": " + std::strerror(err); }

Fd open_root(const std::filesystem::path& folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if (err == ELOOP || err == ENOTDIR) {
      if (::lstat(folder.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        throw ArtifactIoError(folder.string() + ": a symlink (artifact folders are never followed)");
      }
      if (err == ENOTDIR) throw ArtifactIoError(folder.string() + ": not a folder");
    }
    throw ArtifactIoError(os_error(folder.string(), err));
  }
  return Fd(fd);
}

// The names in a folder (not . and ..), read with getdents64 on the folder's own descriptor: no DIR stream,
// so no dup, fstat and fcntl calls per folder (a profile folder is read on every verify).
std::vector<std::string> folder_names(int dir_fd, const std::filesystem::path& shown) {
  std::vector<std::string> names;
  alignas(struct dirent64) char buffer[16384];
  while (true) {
    const ssize_t n = ::getdents64(dir_fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ArtifactIoError(os_error(shown.string(), errno));
    }
    if (n == 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + at);
      const std::string_view name(entry->d_name);
      if (name != "." && name != "..") names.emplace_back(name);
      at += entry->d_reclen;
    }
  }
  return names;
}

// One folder's entries, and those of its folders below it: `depth` folders below the profile folder, at most
// kMaxFolderDepth (so the recursion, and the descriptors it holds open, stay bounded).
void walk(int dir_fd, const std::string& prefix, const std::filesystem::path& shown, std::size_t depth,
          std::vector<FolderEntry>& out) {
  if (depth > kMaxFolderDepth) {
    throw ArtifactIoError(shown.string() + ": folders nested deeper than " + std::to_string(kMaxFolderDepth) +
                          " levels (a profile folder holds at most " + std::to_string(kMaxFolderDepth) +
                          " levels of folders; remove the deeper ones)");
  }
  std::vector<std::string> names = folder_names(dir_fd, shown);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    const std::string rel = prefix.empty() ? name : prefix + "/" + name;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      throw ArtifactIoError(os_error((shown / name).string(), errno));
    }
    if (S_ISLNK(st.st_mode)) {
      out.push_back({rel, EntryKind::symlink});
    } else if (S_ISDIR(st.st_mode)) {
      out.push_back({rel, EntryKind::directory});
      Fd child(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (child.get() < 0) throw ArtifactIoError(os_error((shown / name).string(), errno));
      walk(child.get(), rel, shown / name, depth + 1, out);
    } else if (S_ISREG(st.st_mode)) {
      out.push_back({rel, EntryKind::regular});
    } else {
      out.push_back({rel, EntryKind::other});
    }
  }
}

// The file `hash` reads, named only when an error message needs it.
struct FilePath {
  const std::filesystem::path& folder;
  const std::string& relative;
  std::string text() const { return (folder / relative).string(); }
};

// The folder holding a path's last component, reached one component at a time without following a link; or
// why the walk stopped before it (a component missing, a link or not a folder).
struct LeafFolder {
  Fd owned;        // the intermediate folder being walked, once there is one
  int dir = -1;    // `owned`, or the open folder's own descriptor (which stays open)
  std::string leaf;
  std::optional<FileDigest::Status> stop;
};

LeafFolder walk_to_leaf_folder(int root, const FilePath& where) {
  const std::string& relative = where.relative;
  LeafFolder out;
  out.dir = root;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = relative.find('/', start);
    if (slash == std::string::npos) {
      out.leaf = relative.substr(start);
      return out;
    }
    const std::string part = relative.substr(start, slash - start);
    struct stat st {};
    if (::fstatat(out.dir, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) { out.stop = FileDigest::Status::missing; return out; }
      throw ArtifactIoError(os_error(where.text(), errno));
    }
    if (S_ISLNK(st.st_mode)) { out.stop = FileDigest::Status::symlink; return out; }
    if (!S_ISDIR(st.st_mode)) { out.stop = FileDigest::Status::missing; return out; }
    Fd next(::openat(out.dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0) throw ArtifactIoError(os_error(where.text(), errno));
    out.owned = std::move(next);
    out.dir = out.owned.get();
    start = slash + 1;
  }
}

// The leaf opened for reading if it is a regular file (`st` then its status), else no descriptor and
// `status` says what it is (missing, a link, not regular).
Fd open_regular_leaf(const LeafFolder& parent, const FilePath& where, struct stat& st, FileDigest::Status& status) {
  const char* leaf = parent.leaf.c_str();
  if (::fstatat(parent.dir, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) { status = FileDigest::Status::missing; return Fd(); }
    throw ArtifactIoError(os_error(where.text(), errno));
  }
  if (S_ISLNK(st.st_mode)) { status = FileDigest::Status::symlink; return Fd(); }
  if (!S_ISREG(st.st_mode)) { status = FileDigest::Status::not_regular; return Fd(); }
  // O_NONBLOCK: should the entry be swapped for a FIFO after the check, opening it does not block.
  Fd file(::openat(parent.dir, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) {
    if (errno == ELOOP) { status = FileDigest::Status::symlink; return Fd(); }
    if (errno == ENOENT) { status = FileDigest::Status::missing; return Fd(); }
    throw ArtifactIoError(os_error(where.text(), errno));
  }
  if (::fstat(file.get(), &st) != 0) throw ArtifactIoError(os_error(where.text(), errno));
  if (!S_ISREG(st.st_mode)) { status = FileDigest::Status::not_regular; return Fd(); }
  return file;
}

// Reads the open file `file` (`size` bytes when opened) to its end into `result`'s hash, bytes and (when
// kept) contents; too_large when it grew past `max_bytes` while being read.
// One read(2) into `buffer`, retried on EINTR; ArtifactIoError naming the file otherwise.
std::size_t read_some(int file, std::byte* buffer, std::size_t capacity, const FilePath& where) {
  while (true) {
    const ssize_t n = ::read(file, buffer, capacity);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) throw ArtifactIoError(os_error(where.text(), errno));
  }
}

// At or above this size a file is hashed on a second thread (base/sha256_behind.h) while the next chunk is
// read (and this one copied, when kept): two 1 MiB buffers in turn, each left alone until its hash is done.
constexpr std::uint64_t kHashBehindBytes = std::uint64_t{4} << 20;

// Reads `file` in chunks into the turns of `storage` (`buffers` chunks of `chunk` bytes), hashing each and
// keeping it when asked; `storage` outlives `hash`, whose thread may still read the last chunk.
template <typename Hash>
void read_and_hash_with(Hash& hash, std::byte* storage, std::size_t chunk, int buffers, int file,
                        std::uint64_t size, bool keep_contents, std::optional<std::uint64_t> max_bytes,
                        const FilePath& where, FileDigest& result) {
  if (keep_contents) result.contents.reserve(size);
  std::uint64_t total = 0;
  for (int turn = 0;; turn = (turn + 1) % buffers) {
    std::byte* buffer = storage + chunk * static_cast<std::size_t>(turn);
    const std::size_t n = read_some(file, buffer, chunk, where);
    if (n == 0) break;
    total += n;
    if (max_bytes && total > *max_bytes) {  // grew while being read
      result.status = FileDigest::Status::too_large;
      result.bytes = total;
      result.contents.clear();
      return;
    }
    hash.update(buffer, n);
    if (keep_contents) result.contents.insert(result.contents.end(), buffer, buffer + n);
    // A regular file gives fewer bytes than asked only at its end: no further read needed to see it.
    if (n < chunk) break;
  }
  result.bytes = total;
  result.sha256 = hash.hex_digest();
}

void read_and_hash(int file, std::uint64_t size, bool keep_contents, std::optional<std::uint64_t> max_bytes,
                   const FilePath& where, FileDigest& result) {
  // One read for a small file (the buffer holds it and one byte more, to see it end); never more than 1 MiB
  // at a time. Left uninitialised: zeroing (and faulting in) a fresh 1 MiB per file cost more than hashing.
  constexpr std::uint64_t kChunkBytes = std::uint64_t{1} << 20;
  const auto chunk = static_cast<std::size_t>(std::min(kChunkBytes, size + 1));
  const bool behind = size >= kHashBehindBytes;
  const int buffers = behind ? 2 : 1;
  const std::unique_ptr<std::byte[]> storage(new std::byte[chunk * static_cast<std::size_t>(buffers)]);
  if (behind) {
    Sha256Behind hash;
    read_and_hash_with(hash, storage.get(), chunk, buffers, file, size, keep_contents, max_bytes, where, result);
  } else {
    Sha256 hash;
    read_and_hash_with(hash, storage.get(), chunk, buffers, file, size, keep_contents, max_bytes, where, result);
  }
}

}  // namespace

OpenFolder::OpenFolder(const std::filesystem::path& folder) : folder_(folder), fd_(open_root(folder).release()) {}

OpenFolder::~OpenFolder() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<FolderEntry> OpenFolder::list() const {
  // Reading the names moves the folder's read position (the *at calls of `hash` do not depend on it): the
  // listing starts from the first name every time.
  if (listed_ && ::lseek(fd_, 0, SEEK_SET) != 0) throw ArtifactIoError(os_error(folder_.string(), errno));
  listed_ = true;
  std::vector<FolderEntry> out;
  walk(fd_, "", folder_, 0, out);
  std::sort(out.begin(), out.end(), [](const FolderEntry& a, const FolderEntry& b) { return a.path < b.path; });
  return out;
}

std::vector<FolderEntry> list_folder(const std::filesystem::path& folder) {
  Fd root = open_root(folder);
  std::vector<FolderEntry> out;
  walk(root.get(), "", folder, 0, out);
  std::sort(out.begin(), out.end(), [](const FolderEntry& a, const FolderEntry& b) { return a.path < b.path; });
  return out;
}

FileDigest hash_file(const std::filesystem::path& folder, const std::string& relative, bool keep_contents,
                     std::optional<std::uint64_t> max_bytes) {
  return OpenFolder(folder).hash(relative, keep_contents, max_bytes);
}

FileDigest OpenFolder::hash(const std::string& relative, bool keep_contents,
                            std::optional<std::uint64_t> max_bytes) const {
  const FilePath where{folder_, relative};
  FileDigest result;
  LeafFolder parent = walk_to_leaf_folder(fd_, where);
  if (parent.stop) {
    result.status = *parent.stop;
    return result;
  }
  struct stat st {};
  Fd file = open_regular_leaf(parent, where, st, result.status);
  if (file.get() < 0) return result;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (max_bytes && size > *max_bytes) {
    result.status = FileDigest::Status::too_large;
    result.bytes = size;
    return result;
  }
  read_and_hash(file.get(), size, keep_contents, max_bytes, where, result);
  return result;
}

}  // namespace nnx
