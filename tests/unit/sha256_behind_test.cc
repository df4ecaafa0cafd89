// Sha256Behind (base/sha256_behind.h) gives the digest Sha256 gives, whatever the chunking and however long
// its thread takes; and hash_file (artifacts/artifact_folder.h), which uses it from 4 MiB on, digests and
// keeps a large file exactly as its bytes, at sizes around the chunk and threshold edges.
#include "base/sha256_behind.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "artifacts/artifact_folder.h"
#include "base/sha256.h"
#include "support/files.h"
#include "support/temp_dir.h"

namespace nnx {
namespace {

// Bytes that differ at every offset of a chunk, so a chunk hashed twice or out of order changes the digest.
std::string patterned(std::size_t size) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + i / 4099) & 0xFF);
  return bytes;
}

TEST(Sha256Behind, GivesTheDigestOfTheWholeTextWhateverTheChunks) {
  const std::string bytes = patterned(3 * 1000 * 1000 + 17);
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{4096}, std::size_t{1} << 20, bytes.size()}) {
    if (chunk == 1 && bytes.size() > 100000) {  // byte by byte: a short prefix keeps the test fast
      Sha256Behind hash;
      for (std::size_t i = 0; i < 5000; ++i) hash.update(bytes.data() + i, 1);
      EXPECT_EQ(hash.hex_digest(), sha256_hex(std::string_view(bytes).substr(0, 5000)));
      continue;
    }
    Sha256Behind hash;
    for (std::size_t at = 0; at < bytes.size(); at += chunk) {
      hash.update(bytes.data() + at, std::min(chunk, bytes.size() - at));
    }
    EXPECT_EQ(hash.hex_digest(), sha256_hex(bytes)) << "chunk " << chunk;
  }
}

TEST(Sha256Behind, AnEmptyTextAndEmptyChunksGiveTheEmptyDigest) {
  Sha256Behind hash;
  hash.update("", 0);
  EXPECT_EQ(hash.hex_digest(), sha256_hex(""));
}

TEST(Sha256Behind, LeavesTheCallersBytesToItsNextCallOnly) {
  // Two buffers in turn, each rewritten right after the next update returns: the digest is still the
  // text's, since update waits for the chunk before the one it is handed.
  const std::string bytes = patterned(64 << 10);
  std::vector<char> turns[2] = {std::vector<char>(4096), std::vector<char>(4096)};
  Sha256Behind hash;
  for (std::size_t at = 0, turn = 0; at < bytes.size(); at += 4096, turn ^= 1) {
    std::copy_n(bytes.data() + at, 4096, turns[turn].data());
    hash.update(turns[turn].data(), 4096);
    std::fill(turns[turn ^ 1].begin(), turns[turn ^ 1].end(), 'x');  // the previous chunk's buffer, now free
  }
  EXPECT_EQ(hash.hex_digest(), sha256_hex(bytes));
}

TEST(HashFile, DigestsAndKeepsLargeFilesExactlyAtTheEdgesOfItsChunks) {
  test_support::TempDir folder{"nnx-hash-behind"};
  const std::size_t mib = std::size_t{1} << 20;
  for (const std::size_t size : {4 * mib - 1, 4 * mib, 4 * mib + 1, 9 * mib, 9 * mib + 12345}) {
    const std::string bytes = patterned(size);
    test_support::write_file(folder.path() / "big.bin", bytes);
    for (const bool keep : {false, true}) {
      const FileDigest digest = hash_file(folder.path(), "big.bin", keep);
      ASSERT_EQ(digest.status, FileDigest::Status::ok) << size;
      EXPECT_EQ(digest.bytes, size);
      EXPECT_EQ(digest.sha256, sha256_hex(bytes)) << size << (keep ? " kept" : "");
      if (keep) {
        ASSERT_EQ(digest.contents.size(), size);
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(digest.contents.data()), size), bytes) << size;
      } else {
        EXPECT_TRUE(digest.contents.empty());
      }
    }
  }
}

}  // namespace
}  // namespace nnx
