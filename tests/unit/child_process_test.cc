// spawn_in_own_group (base/child_process.h): a child leads its own process group, starts with every signal
// at its default action and unblocked whatever the parent ignores or blocks, and holds exactly the
// descriptors it was given; its exit descriptor (open_exit_fd) wakes a poll once it has exited.
#include "base/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
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

TEST(ChildProcess, ExitDescriptorBecomesReadableWhenTheChildExitsNotBefore) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  // The child waits for its stdin to close, then exits: until then its exit descriptor stays quiet.
  const pid_t pid = spawn_in_own_group({"sh", "-c", "read line; exit 3"},
                                       {ChildFd::copy(0, fds[0]), ChildFd::open(1, "/dev/null", O_WRONLY)}, nullptr,
                                       true);
  ::close(fds[0]);
  const int exit_fd = open_exit_fd(pid);
  ASSERT_GE(exit_fd, 0) << "pidfd_open: " << std::strerror(errno);
  EXPECT_NE(::fcntl(exit_fd, F_GETFD) & FD_CLOEXEC, 0);
  pollfd quiet{exit_fd, POLLIN, 0};
  EXPECT_EQ(::poll(&quiet, 1, 200), 0);  // still running: nothing to read
  ::close(fds[1]);                        // its `read` ends, and so does it
  pollfd exited{exit_fd, POLLIN, 0};
  EXPECT_EQ(::poll(&exited, 1, 10000), 1);
  EXPECT_NE(exited.revents & POLLIN, 0);
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, WNOHANG), pid);  // readable means exited: reaped without waiting
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  ::close(exit_fd);
}

}  // namespace
}  // namespace nnx
