// worker_process_test.cc — WorkerProcess against real child processes.
//
// Each test writes a small Python script into a temp dir and runs it with `python3` from PATH; the
// scripts misbehave on purpose (die by a signal, hang, answer garbage, flood stdout) because a real
// worker cannot be made to do so on demand. Every test checks that no process is left behind. The command
// search and the real worker/nnx_worker.py are worker_command_test.cc.
#include "worker/worker_process.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "base/error.h"
#include "support/files.h"
#include "support/temp_dir.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace nnx {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using TempDir = nnx::test_support::TempDir;
using nnx::test_support::write_file;

// A Python script: `body` runs once per request line `req` (a dict); `answer(obj)` writes to fd 3.
fs::path write_script(const TempDir& dir, const std::string& name, const std::string& body) {
  fs::path path = dir.path() / name;
  std::string text =
      "import json, os, signal, subprocess, sys, time\n"
      "def answer(obj):\n"
      "    os.write(3, (json.dumps(obj) + '\\n').encode())\n"
      "for line in sys.stdin:\n"
      "    req = json.loads(line)\n";
  std::istringstream lines(body);
  for (std::string l; std::getline(lines, l);) text += "    " + l + "\n";
  return write_file(path, text);
}

WorkerCommand python3(const fs::path& script) { return WorkerCommand{"python3", script, {}}; }

// Limits that no environment variable or signal flag changes: the bounds given, never interrupted.
WorkerLimits limits(std::size_t max_log_bytes = 1 << 20, std::size_t max_response_bytes = 64 << 20,
                    std::uint64_t max_output_bytes = std::uint64_t{1} << 30) {
  WorkerLimits given;
  given.max_log_bytes = max_log_bytes;
  given.max_response_bytes = max_response_bytes;
  given.max_output_bytes = max_output_bytes;
  return given;
}

// Live (non-zombie) processes whose process group is `pgid`, from /proc.
std::vector<pid_t> live_group_members(pid_t pgid) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    if (!in || !std::getline(in, stat)) continue;
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = '?';
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp == pgid && state != 'Z' && state != 'X') found.push_back(static_cast<pid_t>(std::stol(entry.path().filename())));
  }
  return found;
}

bool gone_soon(pid_t pgid) {
  for (auto deadline = Clock::now() + 3s; Clock::now() < deadline; std::this_thread::sleep_for(20ms))
    if (live_group_members(pgid).empty()) return true;
  return false;
}

bool reaped(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

WorkerError::Kind kind_of(WorkerProcess& worker, const json& req, std::chrono::milliseconds timeout,
                          std::string* message = nullptr) {
  try {
    worker.request(req, timeout);
  } catch (const WorkerError& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "expected a WorkerError";
  return WorkerError::Kind::start_failed;
}

TEST(WorkerProcess, RoundTripAndLogCapture) {
  TempDir dir;
  auto script = write_script(dir, "echo.py",
                             "print('stdout line', req.get('n'), flush=True)\n"
                             "print('stderr line', req.get('n'), file=sys.stderr, flush=True)\n"
                             "answer({'ok': True, 'echo': req, 'env': os.environ.get('NNX_TEST_VALUE')})\n");
  WorkerCommand command = python3(script);
  command.extra_env = {{"NNX_TEST_VALUE", "forty two"}};
  pid_t pid;
  {
    WorkerProcess worker(command);
    pid = worker.pid();
    EXPECT_EQ(::getpgid(pid), pid) << "the worker leads its own process group";
    for (int n = 1; n <= 3; ++n) {
      json req = {{"op", "echo"}, {"n", n}, {"text", "caf\u00e9 \"quoted\""}};
      json res = worker.request(req, 10s);
      EXPECT_EQ(res["ok"], true);
      EXPECT_EQ(res["echo"], req);
      EXPECT_EQ(res["env"], "forty two");
    }
    EXPECT_TRUE(worker.running());
    std::string tail = worker.log_tail(2);
    EXPECT_NE(tail.find("stdout line 3"), std::string::npos) << tail;
    EXPECT_NE(tail.find("stderr line 3"), std::string::npos) << tail;
    EXPECT_EQ(tail.find("line 2"), std::string::npos) << tail;
  }
  EXPECT_TRUE(reaped(pid));
  EXPECT_TRUE(gone_soon(pid));
}

TEST(WorkerProcess, KilledBySignalIsDiedNamingTheSignal) {
  TempDir dir;
  auto script = write_script(dir, "crash.py",
                             "print('about to crash', flush=True)\n"
                             "os.kill(os.getpid(), signal.SIGKILL)\n");
  WorkerProcess worker(python3(script));
  std::string message;
  EXPECT_EQ(kind_of(worker, {{"op", "export"}}, 10s, &message), WorkerError::Kind::died);
  EXPECT_NE(message.find("SIGKILL"), std::string::npos) << message;
  EXPECT_NE(message.find("about to crash"), std::string::npos) << "the log tail is in the message: " << message;
  EXPECT_FALSE(worker.running());
  EXPECT_TRUE(reaped(worker.pid()));
  EXPECT_EQ(kind_of(worker, {{"op", "ping"}}, 1s), WorkerError::Kind::died) << "a dead worker takes no requests";
}

TEST(WorkerProcess, ExitWithoutAnswerIsDiedNamingTheStatus) {
  TempDir dir;
  auto script = write_script(dir, "exit.py", "sys.exit(3)\n");
  WorkerProcess worker(python3(script));
  std::string message;
  EXPECT_EQ(kind_of(worker, {{"op", "ping"}}, 10s, &message), WorkerError::Kind::died);
  EXPECT_NE(message.find("exited with status 3"), std::string::npos) << message;
}

// Waits until the group has at least `count` live members (the worker and its grandchild).
bool members_at_least(pid_t pgid, std::size_t count) {
  for (auto deadline = Clock::now() + 10s; Clock::now() < deadline; std::this_thread::sleep_for(20ms))
    if (live_group_members(pgid).size() >= count) return true;
  return false;
}

TEST(WorkerProcess, HangTimesOutWithinTheDeadlineAndLeavesNoProcess) {
  TempDir dir;
  // The worker first starts a grandchild in its process group: both must be gone afterwards.
  fs::path script = dir.path() / "hang.py";
  write_file(script, "import subprocess, sys, time\n"
                      "subprocess.Popen(['sleep', '1000'])\n"
                      "sys.stdin.readline()\n"
                      "while True:\n    time.sleep(3600)\n");
  WorkerProcess worker(python3(script));
  const pid_t pgid = worker.pid();
  ASSERT_TRUE(members_at_least(pgid, 2)) << "the grandchild is running";
  auto start = Clock::now();
  std::string message;
  EXPECT_EQ(kind_of(worker, {{"op", "export"}}, 1500ms, &message), WorkerError::Kind::timed_out);
  auto elapsed = Clock::now() - start;
  EXPECT_GE(elapsed, 1500ms);
  EXPECT_LT(elapsed, 2500ms) << "the deadline is kept";
  EXPECT_NE(message.find("'export'"), std::string::npos) << message;
  EXPECT_TRUE(reaped(pgid));
  EXPECT_TRUE(gone_soon(pgid)) << "no member of the worker's process group survives";
}

TEST(WorkerProcess, GarbageIsMalformedNamingTheFirstBytes) {
  TempDir dir;
  auto script = write_script(dir, "garbage.py", "os.write(3, b'<html>not json\\xff\\n')\n");
  WorkerProcess worker(python3(script));
  std::string message;
  EXPECT_EQ(kind_of(worker, {{"op", "export"}}, 10s, &message), WorkerError::Kind::malformed);
  EXPECT_NE(message.find("<html>not json\\xff"), std::string::npos) << message;
  EXPECT_TRUE(reaped(worker.pid()));
}

TEST(WorkerProcess, ResponseWithoutBooleanOkIsMalformed) {
  TempDir dir;
  auto script = write_script(dir, "noack.py", "answer([1, 2, 3])\n");
  WorkerProcess worker(python3(script));
  std::string message;
  EXPECT_EQ(kind_of(worker, {{"op", "ping"}}, 10s, &message), WorkerError::Kind::malformed);
  EXPECT_NE(message.find("[1, 2, 3]"), std::string::npos) << message;
}

TEST(WorkerProcess, OkFalseIsReturnedNotThrown) {
  TempDir dir;
  auto script = write_script(dir, "refuse.py", "answer({'ok': False, 'error': 'unknown op'})\n");
  WorkerProcess worker(python3(script));
  json res = worker.request({{"op", "nope"}}, 10s);
  EXPECT_EQ(res["ok"], false);
  EXPECT_EQ(res["error"], "unknown op");
  EXPECT_TRUE(worker.running());
}

TEST(WorkerProcess, FloodIsBoundedAndDoesNotBlockTheProtocol) {
  TempDir dir;
  // 64 MiB on stdout and 1 MiB on stderr, far beyond the pipe buffer, before the answer.
  auto script = write_script(dir, "flood.py",
                             "chunk = b'x' * 1023 + b'\\n'\n"
                             "for _ in range(64 * 1024):\n"
                             "    os.write(1, chunk)\n"
                             "os.write(2, b'e' * (1 << 20))\n"
                             "os.write(1, b'\\nlast line of the flood\\n')\n"
                             "answer({'ok': True})\n");
  constexpr std::size_t kMaxLog = 64 << 10;
  WorkerProcess worker(python3(script), limits(kMaxLog));
  auto start = Clock::now();
  json res = worker.request({{"op", "export"}}, 60s);
  EXPECT_EQ(res["ok"], true);
  EXPECT_LT(Clock::now() - start, 30s);
  EXPECT_EQ(worker.log_tail(1), "last line of the flood");
  EXPECT_LE(worker.log_tail(1'000'000).size(), kMaxLog);
  EXPECT_GE(worker.log_bytes_dropped(), (65u << 20) - 2 * kMaxLog);
  EXPECT_EQ(worker.request({{"op", "export"}}, 60s)["ok"], true) << "the worker keeps serving";
}

TEST(WorkerProcess, OversizedResponseIsOutputLimit) {
  TempDir dir;
  auto script = write_script(dir, "big.py", "answer({'ok': True, 'blob': 'y' * 100000})\n");
  WorkerProcess worker(python3(script), limits(1 << 20, 4096));
  EXPECT_EQ(kind_of(worker, {{"op", "ping"}}, 10s), WorkerError::Kind::output_limit);
  EXPECT_TRUE(reaped(worker.pid()));
}

TEST(WorkerProcess, OutputBeyondTheGivenBoundIsOutputLimit) {
  TempDir dir;
  // 1 MiB on stdout, then silence: the bound given (64 KiB) stops the worker, not the deadline.
  auto script = write_script(dir, "chatty.py",
                             "os.write(1, b'c' * (1 << 20))\n"
                             "time.sleep(3600)\n");
  WorkerProcess worker(python3(script), limits(1 << 20, 64 << 20, 64 << 10));
  std::string message;
  auto start = Clock::now();
  EXPECT_EQ(kind_of(worker, {{"op", "export"}}, 30s, &message), WorkerError::Kind::output_limit);
  EXPECT_LT(Clock::now() - start, 10s);
  EXPECT_NE(message.find("more than the bound of 65536 bytes"), std::string::npos) << message;
  EXPECT_TRUE(reaped(worker.pid()));
  EXPECT_TRUE(gone_soon(worker.pid()));
}

TEST(WorkerProcess, TheGivenInterruptCheckEndsARequestAndKillsTheGroup) {
  TempDir dir;
  fs::path script = dir.path() / "silent.py";
  write_file(script, "import subprocess, sys, time\n"
                      "subprocess.Popen(['sleep', '1000'])\n"
                      "sys.stdin.readline()\n"
                      "while True:\n    time.sleep(3600)\n");
  std::atomic<int> signal_seen{0};
  WorkerLimits given = limits();
  given.interrupt_signal = [&] { return signal_seen.load(); };
  WorkerProcess worker(python3(script), given);
  const pid_t pgid = worker.pid();
  ASSERT_TRUE(members_at_least(pgid, 2)) << "the grandchild is running";
  std::thread later([&] {
    std::this_thread::sleep_for(300ms);
    signal_seen = SIGTERM;
  });
  auto start = Clock::now();
  int thrown = 0;
  try {
    worker.request({{"op", "export"}}, 60s);
  } catch (const Interrupted& e) {
    thrown = e.signal();
  }
  later.join();
  EXPECT_EQ(thrown, SIGTERM);
  EXPECT_LT(Clock::now() - start, 5s);
  EXPECT_FALSE(worker.running());
  EXPECT_TRUE(reaped(pgid));
  EXPECT_TRUE(gone_soon(pgid)) << "no member of the worker's process group survives";
}

TEST(WorkerProcess, WriteToAClosedStdinDoesNotRaiseSigpipe) {
  TempDir dir;
  fs::path script = dir.path() / "closer.py";
  write_file(script, "import os, time\nos.close(0)\ntime.sleep(0.3)\nos._exit(4)\n");
  WorkerProcess worker(python3(script));
  std::this_thread::sleep_for(1s);  // stdin is closed by now; the payload (8 MiB) cannot be delivered
  std::string message;
  EXPECT_EQ(kind_of(worker, {{"op", "export"}, {"blob", std::string(8 << 20, 'z')}}, 10s, &message),
            WorkerError::Kind::died);
  EXPECT_NE(message.find("exited with status 4"), std::string::npos) << message;
}

TEST(WorkerProcess, DestructorKillsAWorkerThatIgnoresEof) {
  TempDir dir;
  fs::path script = dir.path() / "stubborn.py";
  write_file(script, "import signal, subprocess, time\n"
                      "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                      "subprocess.Popen(['sleep', '1000'])\n"
                      "while True:\n    time.sleep(3600)\n");
  pid_t pgid;
  auto start = Clock::now();
  {
    WorkerProcess worker(python3(script));
    pgid = worker.pid();
    ASSERT_TRUE(members_at_least(pgid, 2)) << "the grandchild is running";
    start = Clock::now();
  }
  EXPECT_LT(Clock::now() - start, 5s);
  EXPECT_TRUE(reaped(pgid));
  EXPECT_TRUE(gone_soon(pgid));
}

TEST(WorkerProcess, MissingPythonIsStartFailed) {
  TempDir dir;
  auto script = write_script(dir, "echo.py", "answer({'ok': True})\n");
  for (const char* python : {"/nonexistent/bin/python3", "nnx-no-such-python-on-path"}) {
    try {
      WorkerProcess worker(WorkerCommand{python, script, {}});
      ADD_FAILURE() << python << " started";
    } catch (const WorkerError& e) {
      EXPECT_EQ(e.kind(), WorkerError::Kind::start_failed);
      EXPECT_NE(std::string(e.what()).find(python), std::string::npos) << e.what();
    }
  }
  try {
    WorkerProcess worker(WorkerCommand{"python3", dir.path() / "missing.py", {}});
    ADD_FAILURE() << "a missing script started";
  } catch (const WorkerError& e) {
    EXPECT_EQ(e.kind(), WorkerError::Kind::start_failed);
    EXPECT_NE(std::string(e.what()).find("missing.py"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nnx
