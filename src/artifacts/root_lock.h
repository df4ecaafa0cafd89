// One run per artifacts root (doc/architecture.md, "The data flow of run").
//
// `ArtifactRootLock` holds an exclusive flock(2) on the root folder's OWN descriptor for its lifetime: no
// lock file is created, so nothing is left in the root that the run did not mean to publish. The root is
// created when missing (a symlinked root is refused earlier, by layout.h's checks, only when it is to be
// cleared). A root another process holds
// is refused at once with RootInUse (a UsageError: exit 2), naming the holder's pid when /proc/locks shows
// it. The lock dies with its holder (even under SIGKILL). verify and execute take no lock: they only read.
#pragma once

#include <filesystem>

#include "base/error.h"

namespace nnx {

class ArtifactRootLock {
 public:
  // Throws RootInUse when another process holds the root, std::runtime_error naming the OS error when the
  // root cannot be created or opened as a folder.
  explicit ArtifactRootLock(const std::filesystem::path& root);
  ~ArtifactRootLock();
  ArtifactRootLock(const ArtifactRootLock&) = delete;
  ArtifactRootLock& operator=(const ArtifactRootLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace nnx
