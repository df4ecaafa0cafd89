// The output-path rule (artifacts/output_paths.h) and the nested-root lock (artifacts/root_lock.h) on real
// files: FIFOs, sockets, a character device made with mknod, symlinks, hard links, folders still to be
// created. The command line's use of them is tests/e2e/test_hostile_output_paths.py.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "artifacts/output_paths.h"
#include "artifacts/root_lock.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using nnx::test_support::read_file;
using nnx::test_support::TempDir;
using nnx::test_support::write_file;

namespace {

// The UsageError's message, or "" when `body` throws none.
template <typename Body>
std::string refusal(Body body) {
  try {
    body();
  } catch (const nnx::UsageError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(OutputPaths, ResolvedPathFollowsLinksAndAppliesDotDotAfterFoldersNotYetMade) {
  TempDir dir;
  const fs::path base = fs::canonical(dir.path());
  fs::create_directories(base / "real" / "inner");
  fs::create_directory_symlink(base / "real", base / "link");
  EXPECT_EQ(nnx::resolved_path(base / "link" / "inner" / "r.json"), base / "real" / "inner" / "r.json");
  EXPECT_EQ(nnx::resolved_path(base / "new" / ".." / "link" / "x"), base / "real" / "x");
  EXPECT_EQ(nnx::resolved_path(base / "real" / "inner" / ".." / ".." / "a" / "." / "b"), base / "a" / "b");
}

TEST(OutputPaths, EveryNodeButARegularFileIsRefusedByKindAndLeftAlone) {
  TempDir dir;
  const fs::path fifo = dir.path() / "fifo", device = dir.path() / "null", sock = dir.path() / "sock";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  struct stat null_device {};
  ASSERT_EQ(::stat("/dev/null", &null_device), 0);
  const bool can_mknod = ::mknod(device.c_str(), S_IFCHR | 0666, null_device.st_rdev) == 0;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", sock.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  fs::create_directory(dir.path() / "folder");
  std::vector<std::pair<fs::path, std::string>> nodes = {
      {fifo, "is a FIFO (named pipe)"}, {sock, "is a socket"}, {dir.path() / "folder", "is a folder"}};
  if (can_mknod) nodes.push_back({device, "is a character device"});
  for (const auto& [path, kind] : nodes) {
    const auto before = fs::symlink_status(path).type();
    const std::string why = refusal([&] { nnx::check_output_paths({{{"--html", path}}, {}, {}}); });
    EXPECT_TRUE(has(why, "--html " + path.string() + " " + kind)) << why;
    EXPECT_TRUE(has(why, "only a regular file or a new file is written")) << why;
    EXPECT_THROW(nnx::write_file_atomically(path, "x"), nnx::UsageError) << path;
    EXPECT_EQ(fs::symlink_status(path).type(), before) << path << " was replaced";
  }
  ::close(fd);
  write_file(dir.path() / "old.json", "old");
  EXPECT_NO_THROW(nnx::check_output_paths({{{"--output", dir.path() / "old.json"}, {"--html", dir.path() / "n"}}, {}, {}}));
}

TEST(OutputPaths, AnInputUnderAnotherSpellingOrAHardLinkIsRefused) {
  TempDir dir;
  fs::create_directories(dir.path() / "sub");
  const fs::path input = write_file(dir.path() / "sub" / "report.json", "{}");
  fs::create_directory_symlink(dir.path() / "sub", dir.path() / "alias");
  fs::create_hard_link(input, dir.path() / "hard.json");
  for (const fs::path& output : {input, dir.path() / "alias" / "report.json", dir.path() / "sub" / ".." / "sub" / "report.json",
                                 dir.path() / "hard.json"}) {
    const std::string why = refusal([&] { nnx::check_output_paths({{{"--html", output}}, {{"FILE", input}}, {}}); });
    EXPECT_TRUE(has(why, "--html " + output.string() + " is an input of the same command (FILE " + input.string() + ")")) << why;
  }
  EXPECT_EQ(read_file(input), "{}");
}

TEST(OutputPaths, AnOutputInsideARootOrTwiceIsRefused) {
  TempDir dir;
  const fs::path root = dir.path() / "art";
  fs::create_directories(root / "p");
  write_file(root / "p" / "model.onnx", "model");
  fs::create_directory_symlink(root / "p", dir.path() / "into-root");
  for (const fs::path& output : {root / "p" / "model.onnx", root / "r.json", dir.path() / "into-root" / "x.json",
                                 dir.path() / "new" / ".." / "art" / "p" / "y.json"}) {
    const std::string why =
        refusal([&] { nnx::check_output_paths({{{"--output", output}}, {}, {{"the artifacts root", root}}}); });
    EXPECT_TRUE(has(why, "--output " + output.string() + " is inside the artifacts root " + root.string())) << why;
  }
  EXPECT_EQ(read_file(root / "p" / "model.onnx"), "model");
  EXPECT_NO_THROW(nnx::check_output_paths({{{"--output", dir.path() / "art-report.json"}}, {}, {{"root", root}}}));
  const fs::path page = dir.path() / "page";
  const std::string why = refusal([&] {
    nnx::check_output_paths({{{"--html", page}, {"--junit", dir.path() / "." / "page"}}, {}, {}});
  });
  EXPECT_TRUE(has(why, "--junit " + (dir.path() / "." / "page").string() + " is the same file as --html")) << why;
  EXPECT_FALSE(fs::exists(page));
}

TEST(ArtifactRootLock, RootsThatContainOneAnotherExcludeEachOtherAndSiblingsDoNot) {
  TempDir dir;
  const fs::path outer = dir.path() / "P", inner = outer / "feedfwd-fp32-torchscript";
  {
    nnx::ArtifactRootLock held(outer);
    try {
      nnx::ArtifactRootLock nested(inner);
      ADD_FAILURE() << "a root inside a held root was granted";
    } catch (const nnx::RootInUse& e) {
      EXPECT_TRUE(has(e.what(), "holds " + fs::canonical(outer).string() + ", which contains " + inner.string()))
          << e.what();
    }
  }
  {
    nnx::ArtifactRootLock held(inner);
    try {
      nnx::ArtifactRootLock containing(outer);
      ADD_FAILURE() << "a root holding a held root was granted";
    } catch (const nnx::RootInUse& e) {
      // Its holder is this very process, which /proc/locks does not name as another run.
      EXPECT_TRUE(has(e.what(), "holds " + outer.string() + " or a folder inside it")) << e.what();
    }
    EXPECT_NO_THROW(nnx::ArtifactRootLock sibling(outer / "feedfwd-fp32-dynamo"));
  }
  EXPECT_NO_THROW(nnx::ArtifactRootLock free_again(outer));
}
