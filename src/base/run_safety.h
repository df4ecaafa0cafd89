// What keeps a run safe from its surroundings: a SIGINT or SIGTERM during the run, a second run on the
// same artifacts root, and an output path that cannot take the report.
//
// Interruption is cooperative. `install_interrupt_handlers` makes SIGINT and SIGTERM only record the
// signal (no SA_RESTART, so a blocking call returns EINTR). Long waits check it: the worker client
// (worker_process.cc) kills and reaps the worker's process group and throws Interrupted; the run checks it
// between stages and before the report is written. The command line maps Interrupted to exit 128 + signal
// (130 for SIGINT, 143 for SIGTERM) without writing the report, so the previous report stays as it was.
//
// `ArtifactRootLock` holds an exclusive flock(2) on `<root>/.nnx-conformance.lock` for its lifetime (the
// root is created when missing; the lock file is created only there, never followed when it is a symlink,
// and left in place afterwards: removing it would race with a waiting run). A root another process holds
// is refused at once with RootInUse (a UsageError: exit 2). The lock lives in the root, not in a profile
// folder, so verify and execute (which read only `<root>/<profile>`) never see it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "base/failure.h"

namespace nnx {

class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal);
  int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

// SIGINT and SIGTERM set the interrupt flag and nothing else. Idempotent.
void install_interrupt_handlers();
// 0, or the first SIGINT/SIGTERM received since the handlers were installed.
int interrupt_signal() noexcept;
// Throws Interrupted when a signal was received.
void throw_if_interrupted();
// "SIGINT", "SIGTERM", or "signal N".
std::string signal_text(int signal);

inline constexpr const char* kRootLockFile = ".nnx-conformance.lock";

class RootInUse : public UsageError {
 public:
  using UsageError::UsageError;
};

class ArtifactRootLock {
 public:
  // Throws RootInUse when another process holds the lock, std::runtime_error naming the OS error when the
  // root cannot be created or the lock file cannot be opened.
  explicit ArtifactRootLock(const std::filesystem::path& root);
  ~ArtifactRootLock();
  ArtifactRootLock(const ArtifactRootLock&) = delete;
  ArtifactRootLock& operator=(const ArtifactRootLock&) = delete;

 private:
  int fd_ = -1;
};

// The most stdout+stderr bytes a worker may write while answering one request: env
// NNX_WORKER_MAX_OUTPUT_BYTES (a positive integer) or 1 GiB. Beyond it the worker's process group is killed
// and the request fails as output_limit (worker_process.h); below it the output is drained into a bounded
// tail, so a chatty exporter never blocks and never grows memory. Throws std::invalid_argument naming a
// malformed value.
std::uint64_t max_worker_output_bytes();

// Refuses, before anything runs, a report path that is a folder (UsageError) and a report folder that
// cannot be created or written (ConformanceError naming the OS error): a probe file is created there with
// mkstemp and removed.
void require_writable_report_path(const std::filesystem::path& path);

}  // namespace nnx
