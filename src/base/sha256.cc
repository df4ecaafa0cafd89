#include "base/sha256.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <vector>

#include <stdexcept>

namespace nnx {

struct Sha256::State {
  EVP_MD_CTX* ctx = nullptr;
  bool finished = false;
};

namespace {

// SHA-256 fetched from the default provider once per process (each EVP_sha256() init would fetch it again).
const EVP_MD* sha256_md() {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md ? md : EVP_sha256();
}

}  // namespace

Sha256::Sha256() : state_(std::make_unique<State>()) {
  state_->ctx = EVP_MD_CTX_new();
  if (!state_->ctx || EVP_DigestInit_ex(state_->ctx, sha256_md(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(state_->ctx); }

void Sha256::update(const void* data, std::size_t size) {
  if (state_->finished) throw std::logic_error("Sha256::update after hex_digest");
  if (size && EVP_DigestUpdate(state_->ctx, data, size) != 1) {
    throw std::runtime_error("OpenSSL: SHA-256 update failed");
  }
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(state_->ctx, digest, &length) != 1) {
    throw std::runtime_error("OpenSSL: SHA-256 final failed");
  }
  state_->finished = true;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xF]);
  }
  return out;
}

std::string sha256_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category());
  Sha256 hash;
  std::vector<char> chunk(1 << 20);
  while (true) {
    const ssize_t got = ::read(fd, chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      throw std::system_error(err, std::generic_category());
    }
    if (got == 0) break;
    hash.update(chunk.data(), static_cast<std::size_t>(got));
  }
  ::close(fd);
  return hash.hex_digest();
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex_digest();
}

bool is_sha256_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace nnx
