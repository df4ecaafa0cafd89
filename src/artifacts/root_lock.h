// One run per artifacts root (doc/architecture.md, "The data flow of run").
//
// `ArtifactRootLock` holds an exclusive flock(2) on the root folder's OWN descriptor for its lifetime, and a
// shared one on each folder above it (the resolved path's ancestors, up to /; one that cannot be opened
// cannot be another run's root and is passed over): no lock file is created, so nothing is left in the root
// that the run did not mean to publish. So roots that contain one another exclude each other (a run on P
// holds P exclusively, a run on P/q needs P shared), in whichever order they start, while sibling roots
// share their ancestors. The root is created when missing (a symlinked root is refused earlier, by
// layout.h's checks, only when it is to be cleared). A root another process holds, or one inside or above
// another process's root, is refused at once with RootInUse (a UsageError: exit 2), naming the holder's pid
// when /proc/locks shows it. The locks die with their holder (even under SIGKILL). verify and execute take
// no lock: they only read.
#pragma once

#include <filesystem>
#include <vector>

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
  std::vector<int> fds_;  // the ancestors' (shared) and, last, the root's (exclusive)
};

}  // namespace nnx
