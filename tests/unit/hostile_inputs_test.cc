// Hostile inputs at the unit level (the end-to-end tests are tests/e2e/test_hostile_*.py):
//  * the committed fuzz seed corpus (fuzz/corpus/) replayed without sanitizers: the real records in it are
//    valid (so the fuzzer starts from records that reach every rule), the edge cases are refused or
//    accepted as the strict reader promises, and every seed survives the fuzz targets' round trips;
//  * real FIFOs, sockets, devices, symlinks and sparse files given to hash_file: named, never opened for
//    reading, never followed, never read when larger than recorded;
//  * the artifacts-root lock, the report path check and the output bound of run_safety.h;
//  * SIGTERM during a worker request (in a death-test child): the worker's group is killed and reaped
//    and the request throws Interrupted.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/temp_dir.h"

#include "artifacts/artifact_folder.h"
#include "artifacts/artifact_path.h"
#include "base/failure.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "artifacts/root_lock.h"
#include "base/atomic_file.h"
#include "base/interrupt.h"
#include "worker/worker_limits.h"
#include "record/validate_record.h"
#include "worker/worker_process.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const fs::path kCorpus = nnx::test_support::source_path("fuzz/corpus");

using nnx::test_support::read_file;
using nnx::test_support::TempDir;
using nnx::test_support::write_file;

}  // namespace

// ---- the fuzz seed corpus ------------------------------------------------------------------------------

TEST(FuzzSeedCorpus, RealRecordsAreValidAndEdgeCasesBehaveAsPromised) {
  ASSERT_TRUE(fs::is_directory(kCorpus / "json_record_fuzzer")) << kCorpus;
  const std::map<std::string, bool> parses = {
      {"empty.json", false},       {"nan.json", false},         {"duplicate-key.json", false},
      {"deep-129.json", false},    {"deep-128.json", true},     {"invalid-utf8.json", false},
      {"bom.json", false},         {"trailing.json", false},    {"surrogates.json", false},
      {"numbers.json", false},     {"strings.json", true},      {"object.json", true},
      {"array.json", true},        {"not-a-record.json", true}};
  std::size_t records = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus / "json_record_fuzzer")) {
    const std::string name = entry.path().filename().string();
    const std::string text = read_file(entry.path());
    const bool real = name.rfind("record-", 0) == 0 || name.rfind("report-", 0) == 0;
    nnx::json value;
    try {
      value = nnx::parse_strict_json(text);
    } catch (const nnx::JsonError& e) {
      EXPECT_FALSE(real) << name << ": " << e.what();
      if (parses.count(name)) {
        EXPECT_FALSE(parses.at(name)) << name << " should parse: " << e.what();
      }
      continue;
    }
    if (parses.count(name)) {
      EXPECT_TRUE(parses.at(name)) << name << " should be refused";
    }
    EXPECT_EQ(nnx::dumps_canonical(nnx::parse_strict_json(nnx::dumps_pretty(value))), nnx::dumps_canonical(value))
        << name;
    if (!real) continue;
    const bool report = value.contains("profiles");
    for (const auto& record : report ? value["profiles"] : nnx::json::array({value})) {
      EXPECT_EQ(nnx::record_problems(record), std::vector<std::string>{}) << name;
      ++records;
    }
  }
  EXPECT_GE(records, 7u) << "the corpus holds real records of every outcome the seeds were made from";
}

TEST(FuzzSeedCorpus, ArtifactPathSeeds) {
  const std::map<std::string, std::optional<std::string>> expected = {
      {"model", "model.onnx"},          {"external", "model.onnx.data"},   {"nested", "weights/layer0.bin"},
      {"dot-dot-inside", "b"},          {"escape", std::nullopt},          {"escape-deep", std::nullopt},
      {"dots", "a/b"},                  {"absolute", std::nullopt},        {"backslash", std::nullopt},
      {"colon", std::nullopt},          {"empty", std::nullopt},           {"dot", std::nullopt},
      {"dotdot", std::nullopt},         {"self", std::nullopt},            {"trailing-slash", "a/b"},
      {"dotdot-name", "..a/b.."},       {"nul", std::nullopt}};
  for (const auto& [name, want] : expected) {
    const std::string text = read_file(kCorpus / "artifact_path_fuzzer" / name);
    EXPECT_EQ(nnx::normalize_artifact_path(text), want) << name;
  }
}

// ---- hostile files given to hash_file -------------------------------------------------------------------

TEST(HostileFiles, FifoSocketAndDeviceAreNamedWithoutBlocking) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);  // no writer: a blocking open would hang
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = (dir.path() / "sock").string();
  ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
  std::copy(sock_path.begin(), sock_path.end(), addr.sun_path);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::close(sock);
  const auto started = std::chrono::steady_clock::now();
  for (const char* name : {"fifo", "sock"}) {
    EXPECT_EQ(nnx::hash_file(dir.path(), name, true, 1 << 20).status, nnx::FileDigest::Status::not_regular) << name;
  }
  if (::mknod((dir.path() / "zero").c_str(), S_IFCHR | 0600, makedev(1, 5)) == 0) {
    EXPECT_EQ(nnx::hash_file(dir.path(), "zero", true, 1 << 20).status, nnx::FileDigest::Status::not_regular);
  } else {
    std::cerr << "(no CAP_MKNOD: the device case is covered by tests/e2e/test_hostile_folders.py as root)\n";
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  const auto listed = nnx::list_folder(dir.path());
  for (const auto& e : listed) EXPECT_EQ(e.kind, nnx::EntryKind::other) << e.path;
}

TEST(HostileFiles, LinksAreNeverFollowedAtAnyDepth) {
  TempDir dir;
  fs::create_directories(dir.path() / "real");
  write_file(dir.path() / "real" / "w.bin", "weights");
  fs::create_directory_symlink(dir.path() / "real", dir.path() / "linked");
  fs::create_symlink(dir.path() / "real" / "w.bin", dir.path() / "w.bin");
  EXPECT_EQ(nnx::hash_file(dir.path(), "w.bin", false).status, nnx::FileDigest::Status::symlink);
  EXPECT_EQ(nnx::hash_file(dir.path(), "linked/w.bin", false).status, nnx::FileDigest::Status::symlink);
  EXPECT_EQ(nnx::hash_file(dir.path(), "real/w.bin", false).status, nnx::FileDigest::Status::ok);
  EXPECT_THROW(nnx::list_folder(dir.path() / "linked"), nnx::ArtifactIoError);
}

TEST(HostileFiles, ASparseTerabyteIsRefusedFromItsSize) {
  TempDir dir;
  const fs::path big = dir.path() / "model.onnx";
  write_file(big, "recorded bytes");
  fs::resize_file(big, std::uintmax_t{1} << 40);
  const auto started = std::chrono::steady_clock::now();
  const auto d = nnx::hash_file(dir.path(), "model.onnx", true, 14);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1s);
  EXPECT_EQ(d.status, nnx::FileDigest::Status::too_large);
  EXPECT_EQ(d.bytes, std::uint64_t{1} << 40);
  EXPECT_TRUE(d.contents.empty());
}

// ---- run_safety.h ---------------------------------------------------------------------------------------

TEST(ArtifactRootLock, ASecondHolderIsRefusedUntilTheFirstLetsGoAndNoFileIsLeft) {
  TempDir dir;
  const fs::path root = dir.path() / "created" / "root";
  {
    nnx::ArtifactRootLock first(root);
    EXPECT_TRUE(fs::is_directory(root));
    EXPECT_TRUE(fs::is_empty(root)) << "the lock is on the folder itself: no lock file";
    try {
      nnx::ArtifactRootLock second(root);  // a second open file description: flock conflicts
      ADD_FAILURE() << "a second lock on the same root was granted";
    } catch (const nnx::RootInUse& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("another nnx-conformance run holds " + root.string()), std::string::npos) << what;
    }
  }
  EXPECT_NO_THROW(nnx::ArtifactRootLock again(root));
  EXPECT_TRUE(fs::is_empty(root)) << "nothing is left in the artifacts root";
}

TEST(ArtifactRootLock, ARootThatIsAFileIsRefusedAndLeftAlone) {
  TempDir dir;
  write_file(dir.path() / "a", "must not change");
  EXPECT_THROW(nnx::ArtifactRootLock lock(dir.path() / "a"), std::runtime_error);
  EXPECT_EQ(read_file(dir.path() / "a"), "must not change");
}

TEST(ReportPath, FoldersAndUnwritablePlacesAreRefusedBeforeARun) {
  TempDir dir;
  fs::create_directories(dir.path() / "folder");
  write_file(dir.path() / "file", "x");
  EXPECT_THROW(nnx::require_writable_file_path(dir.path() / "folder"), nnx::UsageError);
  EXPECT_THROW(nnx::require_writable_file_path(dir.path() / "file" / "r.json"), nnx::ConformanceError);
  EXPECT_NO_THROW(nnx::require_writable_file_path(dir.path() / "new" / "r.json"));
  EXPECT_TRUE(fs::is_empty(dir.path() / "new")) << "the probe file is removed";
}

TEST(WorkerOutputBound, FromTheEnvironment) {
  ::unsetenv("NNX_WORKER_MAX_OUTPUT_BYTES");
  EXPECT_EQ(nnx::max_worker_output_bytes(), std::uint64_t{1} << 30);
  ::setenv("NNX_WORKER_MAX_OUTPUT_BYTES", "4096", 1);
  EXPECT_EQ(nnx::max_worker_output_bytes(), 4096u);
  for (const char* bad : {"0", "-1", "1e6", "12 ", "lots"}) {
    ::setenv("NNX_WORKER_MAX_OUTPUT_BYTES", bad, 1);
    EXPECT_THROW(nnx::max_worker_output_bytes(), std::invalid_argument) << bad;
  }
  ::unsetenv("NNX_WORKER_MAX_OUTPUT_BYTES");
}

// In a child process (the interrupt flag is process-wide and sticky): SIGTERM arrives while the worker is
// asked something it never answers; the request throws Interrupted promptly, the worker is reaped.
TEST(InterruptDeathTest, SigtermDuringARequestKillsTheWorkerAndThrows) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  const fs::path script = dir.path() / "silent.py";
  write_file(script, "import time\nwhile True:\n    time.sleep(1)\n");
  EXPECT_EXIT(
      {
        const nnx::ScopedInterruptHandlers interrupts;
        nnx::WorkerProcess worker(nnx::WorkerCommand{"python3", script, {}});
        const pid_t pid = worker.pid();
        const pid_t parent = ::getpid();
        if (::fork() == 0) {  // a real signal from another process, mid-request
          ::usleep(300'000);
          ::kill(parent, SIGTERM);
          ::_exit(0);
        }
        const auto started = std::chrono::steady_clock::now();
        int code = 1;
        try {
          worker.request({{"op", "ping"}}, 60s);
        } catch (const nnx::Interrupted& e) {
          const bool prompt = std::chrono::steady_clock::now() - started < 10s;
          const bool reaped = ::kill(pid, 0) != 0 && !worker.running();
          code = (e.signal() == SIGTERM && nnx::interrupt_signal() == SIGTERM && prompt && reaped) ? 0 : 3;
        } catch (...) {
          code = 4;
        }
        ::waitpid(-1, nullptr, 0);
        std::error_code ec;
        fs::remove_all(dir.path(), ec);  // std::exit skips the child's destructors
        std::exit(code);
      },
      ::testing::ExitedWithCode(0), "");
}
