// Test support (tests only, after LevelDB's util/testutil.h): the file helpers every unit test shares —
// write a file, read one back, and a path in this checkout's tree. A temporary folder is temp_dir.h.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace nnx::test_support {

// Writes `bytes` to `path` exactly (binary, truncating); returns `path`. Throws std::runtime_error when
// the file cannot be written.
std::filesystem::path write_file(const std::filesystem::path& path, const std::string& bytes);

// The bytes of `path`, as text or as raw bytes. Throws std::runtime_error when it cannot be read.
std::string read_file(const std::filesystem::path& path);
std::vector<std::byte> read_byte_vector(const std::filesystem::path& path);

// `relative` below the root of the checkout these tests were compiled from ("fuzz/corpus").
std::filesystem::path source_path(const std::filesystem::path& relative);

}  // namespace nnx::test_support
