// spawn_in_own_group (base/child_process.h): a child leads its own process group, starts with every signal
// at its default action and unblocked whatever the parent ignores or blocks, and holds exactly the
// descriptors it was given.
#include "base/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <system_error>

namespace nnx {
namespace {

// Everything the child writes to the pipe, then its exit status.
std::string run_and_read(const std::vector<std::string>& argv, pid_t* group = nullptr) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const pid_t pid = spawn_in_own_group(argv, {ChildFd::open(0, "/dev/null", O_RDONLY), ChildFd::copy(1, fds[1])},
                                       nullptr, true);
  ::close(fds[1]);
  if (group) *group = ::getpgid(pid);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  return out;
}

TEST(ChildProcess, LeadsItsOwnGroupWithEverySignalAtItsDefault) {
  struct sigaction ignore {}, old_hup {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGHUP, &ignore, &old_hup), 0);
  sigset_t usr1, old_mask;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &usr1, &old_mask), 0);
  pid_t group = 0;
  // The child reads its own signal state and waits for its pipe to close (the parent reads its group first).
  const std::string out = run_and_read({"sh", "-c", "grep -E '^Sig(Blk|Ign):' /proc/self/status; echo $$"}, &group);
  ::sigaction(SIGHUP, &old_hup, nullptr);
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  // Signals 1..31 (the real-time ones above are glibc's own, which posix_spawn leaves as they are).
  auto standard_signals = [&](const std::string& field) {
    const std::size_t at = out.find(field + ":\t");
    EXPECT_NE(at, std::string::npos) << out;
    return std::stoull(out.substr(at + field.size() + 2, 16), nullptr, 16) & 0x7fffffffULL;
  };
  EXPECT_EQ(standard_signals("SigBlk"), 0u) << out;  // SIGUSR1 blocked here, not there
  EXPECT_EQ(standard_signals("SigIgn"), 0u) << out;  // SIGHUP ignored here, not there
  const pid_t shell = static_cast<pid_t>(std::stol(out.substr(out.rfind('\n', out.size() - 2) + 1)));
  EXPECT_TRUE(group == shell || group == -1) << "group " << group << ", child " << shell;  // -1: already gone
  EXPECT_NE(::getpgrp(), shell);
}

TEST(ChildProcess, GetsTheDescriptorsItWasGivenAndNoneTheParentMadeCloseOnExec) {
  int kept[2];
  ASSERT_EQ(::pipe2(kept, O_CLOEXEC), 0);  // as every pipe of ours is made
  const std::string out = run_and_read({"sh", "-c", "readlink /proc/$$/fd/0; ls /proc/$$/fd"});
  EXPECT_EQ(out.rfind("/dev/null\n", 0), 0u) << out;  // fd 0 opened for it
  EXPECT_EQ(out.find("\n" + std::to_string(kept[0]) + "\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("\n" + std::to_string(kept[1]) + "\n"), std::string::npos) << out;
  ::close(kept[0]);
  ::close(kept[1]);
}

TEST(ChildProcess, AProgramThatCannotStartIsASystemError) {
  EXPECT_THROW(spawn_in_own_group({"/nonexistent/program"}, {}, nullptr, false), std::system_error);
}

}  // namespace
}  // namespace nnx
