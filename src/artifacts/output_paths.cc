#include "artifacts/output_paths.h"

#include <sys/stat.h>

#include <optional>
#include <system_error>

#include "base/atomic_file.h"
#include "base/error.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;

std::optional<struct stat> status_of(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

bool same_node(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// One file under two spellings: the same resolved path, or the same device and inode.
bool same_file(const fs::path& a, const fs::path& b) {
  if (resolved_path(a) == resolved_path(b)) return true;
  const auto first = status_of(a);
  const auto second = status_of(b);
  return first && second && same_node(*first, *second);
}

std::string named(const NamedPath& p) { return p.label + " " + p.path.string(); }

}  // namespace

fs::path resolved_path(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  fs::path current = absolute.root_path();
  for (const fs::path& part : absolute.relative_path()) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {  // `current` is resolved (or to be created as a folder): its parent is the real one
      current = current.parent_path();
      continue;
    }
    const fs::path next = current / part;
    fs::path canonical = fs::canonical(next, ec);
    current = ec ? next : std::move(canonical);
  }
  return current;
}

bool is_within(const fs::path& path, const fs::path& folder) {
  const fs::path file = resolved_path(path);
  const fs::path relative = file.lexically_relative(resolved_path(folder));
  if (!relative.empty() && *relative.begin() != "..") return true;
  const auto root = status_of(folder);
  if (!root) return false;
  for (fs::path above = file;; above = above.parent_path()) {
    const auto seen = status_of(above);
    if (seen && same_node(*seen, *root)) return true;
    if (above == above.parent_path()) return false;
  }
}

void check_output_paths(const PathUse& use) {
  for (std::size_t i = 0; i < use.outputs.size(); ++i) {
    const NamedPath& output = use.outputs[i];
    require_file_or_new(output.path, output.label);
    for (const NamedPath& input : use.inputs) {
      if (same_file(output.path, input.path)) {
        throw UsageError(named(output) + " is an input of the same command (" + named(input) +
                         "); write the output to another file (the input is left as it is)");
      }
    }
    for (const NamedPath& root : use.roots) {
      if (is_within(output.path, root.path)) {
        throw UsageError(named(output) + " is inside " + named(root) +
                         "; write it outside the root (there it would overwrite an artifact or be taken for one; "
                         "the root is left as it is)");
      }
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (same_file(output.path, use.outputs[j].path)) {
        throw UsageError(named(output) + " is the same file as " + named(use.outputs[j]) +
                         "; give each output its own file");
      }
    }
  }
}

}  // namespace nnx
