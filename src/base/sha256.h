// SHA-256 (OpenSSL EVP), streamed: files are hashed in fixed-size chunks, never read whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace nnx {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, std::size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // Lowercase hex digest; the object may not be updated afterwards.
  std::string hex_digest();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_hex(std::string_view bytes);

// The digest of a whole file, read in 1 MiB chunks through one descriptor. Throws std::system_error with the
// reason (errno) when it cannot be opened or read; the caller names what the file is.
// (artifacts/artifact_folder.h hashes an artifact its own, link-safe way.)
std::string sha256_file(const std::filesystem::path& path);

// True when `text` is 64 lowercase hex digits.
bool is_sha256_hex(std::string_view text);

}  // namespace nnx
