// read_file_bytes / read_file_tail (base/file_bytes.h) and sha256_file (base/sha256.h) on real files, a
// folder and a pipe.
#include "base/file_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>

#include "base/sha256.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;

// A temporary folder to write files into.
struct Scratch {
  test_support::TempDir folder{"nnx-file-bytes"};
  fs::path dir = folder.path();
  fs::path write(const std::string& name, const std::string& bytes) const {
    return test_support::write_file(dir / name, bytes);
  }
};

std::string refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    return e.what();
  }
  ADD_FAILURE() << "not refused";
  return {};
}

TEST(FileBytes, ReadsAWholeFileAndItsEnd) {
  Scratch s;
  std::string bytes(200000, 'x');
  bytes += "the end";
  const fs::path file = s.write("f.bin", bytes);
  EXPECT_EQ(read_file_bytes(file, bytes.size(), "the limit", ErrorKind::usage), bytes);
  EXPECT_EQ(read_file_tail(file, 7, ErrorKind::usage), "the end");
  EXPECT_EQ(read_file_tail(s.write("short", "ab"), 7, ErrorKind::usage), "ab");
}

TEST(FileBytes, RefusesAFolderAMissingFileAndMoreThanTheLimitNamingThePath) {
  Scratch s;
  const fs::path file = s.write("big", std::string(11, 'x'));
  EXPECT_EQ(refusal([&] { read_file_bytes(file, 10, "the limit", ErrorKind::usage); }),
            file.string() + " holds 11 bytes, more than the limit of 10 bytes");
  EXPECT_EQ(refusal([&] { read_file_bytes(s.dir, 10, "the limit", ErrorKind::usage); }),
            "cannot read " + s.dir.string() + ": it is a directory");
  EXPECT_EQ(refusal([&] { read_file_bytes(s.dir / "none", 10, "the limit", ErrorKind::usage); }),
            "cannot open " + (s.dir / "none").string() + ": No such file or directory");
}

TEST(FileBytes, APipeIsReadNoFurtherThanOneBytePastTheLimit) {
  Scratch s;
  const fs::path fifo = s.dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    const std::string chunk(4096, 'y');
    for (int i = 0; i < 64; ++i) {
      if (::write(fd, chunk.data(), chunk.size()) < 0) break;  // the reader stopped: EPIPE
    }
    ::close(fd);
  });
  signal(SIGPIPE, SIG_IGN);
  EXPECT_EQ(refusal([&] { read_file_bytes(fifo, 1000, "the limit", ErrorKind::usage); }),
            fifo.string() + " holds more than the limit of 1000 bytes");
  writer.join();
  signal(SIGPIPE, SIG_DFL);
}

TEST(Sha256File, HashesAFileAsItsBytesAndNamesWhyItCannot) {
  Scratch s;
  const std::string bytes(3 << 20, 'z');  // more than one chunk
  EXPECT_EQ(sha256_file(s.write("z", bytes)), sha256_hex(bytes));
  EXPECT_THROW(sha256_file(s.dir / "none"), std::system_error);
}

}  // namespace
}  // namespace nnx
