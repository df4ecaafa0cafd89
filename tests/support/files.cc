// Test support: the shared file helpers (files.h).
#include "support/files.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace nnx::test_support {

std::filesystem::path write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return path;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::byte> read_byte_vector(const std::filesystem::path& path) {
  const std::string text = read_file(path);
  std::vector<std::byte> bytes(text.size());
  if (!text.empty()) std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

std::filesystem::path source_path(const std::filesystem::path& relative) {
  // This file is tests/support/files.cc: the checkout is three folders up.
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / relative;
}

}  // namespace nnx::test_support
