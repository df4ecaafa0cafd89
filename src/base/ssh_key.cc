#include "base/ssh_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/error.h"
#include "base/file_bytes.h"
#include "base/ssh_wire.h"

namespace nnx {
namespace {

constexpr std::string_view kPrivateLabel = "OPENSSH PRIVATE KEY";
constexpr std::string_view kKeyFileMagic{"openssh-key-v1\0", 15};
constexpr std::size_t kKeyFileLimit = kMaxArmoredBytes;

std::string_view as_text(const std::array<unsigned char, 32>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

SshPublicKey public_from_wire(SshReader& reader) {
  reader.expect_string(kSshEd25519, "the key type (only ssh-ed25519 keys are taken)");
  const std::string_view key = reader.string();
  if (key.size() != 32) reader.refuse("an Ed25519 public key of " + std::to_string(key.size()) + " bytes, not 32");
  SshPublicKey out;
  std::memcpy(out.bytes.data(), key.data(), 32);
  return out;
}

// The private section: check integers, the key, the 64-byte secret (seed || public), comment, padding.
SshPrivateKey private_section(std::string_view section, const SshPublicKey& outer, const std::string& what) {
  SshReader reader(section, what);
  if (reader.u32() != reader.u32()) reader.refuse("its check integers differ (an encrypted or damaged key)");
  const SshPublicKey inner = public_from_wire(reader);
  const std::string_view secret = reader.string();
  if (secret.size() != 64) reader.refuse("an Ed25519 private key of " + std::to_string(secret.size()) + " bytes, not 64");
  std::array<unsigned char, 32> seed{};
  std::memcpy(seed.data(), secret.data(), 32);
  SshPrivateKey key = SshPrivateKey::from_seed(seed);
  OPENSSL_cleanse(seed.data(), seed.size());
  if (!(key.public_key() == inner) || !(inner == outer) || secret.substr(32) != as_text(inner.bytes)) {
    reader.refuse("its public key does not match its private key");
  }
  reader.string();  // comment
  const std::string_view padding = reader.rest();
  for (std::size_t i = 0; i < padding.size(); ++i) {
    if (padding.size() >= 8 || static_cast<unsigned char>(padding[i]) != i + 1) reader.refuse("bad padding");
  }
  return key;
}

}  // namespace

std::string SshPublicKey::wire() const {
  SshWriter writer;
  writer.string(kSshEd25519);
  writer.string(as_text(bytes));
  return writer.bytes();
}

std::string SshPublicKey::line() const { return std::string(kSshEd25519) + " " + base64_encode(wire()); }

SshPrivateKey::SshPrivateKey(SshPrivateKey&& other) noexcept : seed_(other.seed_), public_(other.public_) {
  OPENSSL_cleanse(other.seed_.data(), other.seed_.size());
}

SshPrivateKey& SshPrivateKey::operator=(SshPrivateKey&& other) noexcept {
  seed_ = other.seed_;
  public_ = other.public_;
  OPENSSL_cleanse(other.seed_.data(), other.seed_.size());
  return *this;
}

SshPrivateKey::~SshPrivateKey() { OPENSSL_cleanse(seed_.data(), seed_.size()); }

SshPrivateKey SshPrivateKey::from_seed(const std::array<unsigned char, 32>& seed) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()), &EVP_PKEY_free);
  SshPrivateKey key;
  std::size_t length = key.public_.bytes.size();
  if (!pkey || EVP_PKEY_get_raw_public_key(pkey.get(), key.public_.bytes.data(), &length) != 1 || length != 32) {
    throw ConformanceError("OpenSSL's libcrypto cannot make an Ed25519 key (a build without Ed25519?)");
  }
  key.seed_ = seed;
  return key;
}

SshPrivateKey SshPrivateKey::generate() {
  std::array<unsigned char, 32> seed{};
  if (RAND_bytes(seed.data(), static_cast<int>(seed.size())) != 1) {
    throw ConformanceError("the system's random source gave no bytes for a new key");
  }
  SshPrivateKey key = from_seed(seed);
  OPENSSL_cleanse(seed.data(), seed.size());
  return key;
}

std::string SshPrivateKey::openssh_file(std::string_view comment) const {
  std::array<unsigned char, 4> check{};
  if (RAND_bytes(check.data(), 4) != 1) throw ConformanceError("the system's random source gave no bytes");
  const std::uint32_t checkint = (std::uint32_t(check[0]) << 24) | (check[1] << 16) | (check[2] << 8) | check[3];
  SshWriter section;
  section.u32(checkint);
  section.u32(checkint);
  section.string(kSshEd25519);
  section.string(as_text(public_.bytes));
  section.string(std::string(as_text(seed_)) + std::string(as_text(public_.bytes)));
  section.string(comment);
  for (char pad = 1; section.bytes().size() % 8 != 0; ++pad) section.raw(std::string(1, pad));
  SshWriter file;
  file.raw(kKeyFileMagic);
  file.string("none");
  file.string("none");
  file.string("");
  file.u32(1);
  file.string(public_.wire());
  file.string(section.bytes());
  std::string text = armor(kPrivateLabel, file.bytes());
  std::string secret = section.bytes();
  OPENSSL_cleanse(secret.data(), secret.size());
  return text;
}

SshPrivateKey parse_private_key(std::string_view text, const std::string& what) {
  std::string bytes = unarmor(text, kPrivateLabel, what + " (an OpenSSH private key file)");
  SshReader reader(bytes, what);
  reader.expect_raw(kKeyFileMagic, "its magic (openssh-key-v1)");
  if (reader.string() != "none") {
    reader.refuse("it is encrypted; this tool takes a key without passphrase (ssh-keygen -p -N '' -f KEY removes it)");
  }
  reader.expect_string("none", "its kdf");
  reader.expect_string("", "its kdf options");
  if (reader.u32() != 1) reader.refuse("it does not hold exactly one key");
  SshReader public_reader(reader.string(), what + ": its public key");
  const SshPublicKey outer = public_from_wire(public_reader);
  public_reader.expect_end();
  const std::string_view section = reader.string();
  reader.expect_end();
  SshPrivateKey key = private_section(section, outer, what);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return key;
}

SshPublicKey parse_public_key(std::string_view text, const std::string& what) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    const std::string prefix = std::string(kSshEd25519) + " ";
    if (line.substr(0, prefix.size()) != prefix) {
      throw ConformanceError(what + ": not an ssh-ed25519 public key line (\"ssh-ed25519 AAAA... comment\", KEY.pub)");
    }
    line.remove_prefix(prefix.size());
    const std::string wire = base64_decode(line.substr(0, line.find(' ')), what);
    SshReader reader(wire, what);
    const SshPublicKey key = public_from_wire(reader);
    reader.expect_end();
    return key;
  }
  throw ConformanceError(what + ": holds no public key line");
}

namespace {

// A key file's text, at most kKeyFileLimit bytes; a file that cannot be read is a UsageError saying which key.
std::string key_file_text(const std::filesystem::path& path, const std::string& which) {
  try {
    return read_file_bytes(path, kKeyFileLimit, "a key file's limit", ErrorKind::usage);
  } catch (const Error& e) {
    throw UsageError(which + ": " + e.what());
  }
}

}  // namespace

SshPrivateKey read_private_key_file(const std::filesystem::path& path) {
  std::string text = key_file_text(path, "signing key");
  try {
    SshPrivateKey key = parse_private_key(text, "signing key " + path.string());
    OPENSSL_cleanse(text.data(), text.size());
    return key;
  } catch (const ConformanceError& e) {
    OPENSSL_cleanse(text.data(), text.size());
    throw UsageError(std::string(e.what()) + " (make one with `nnx-conformance keygen` or `ssh-keygen -t ed25519 -N ''`)");
  }
}

SshPublicKey read_public_key_file(const std::filesystem::path& path) {
  const std::string text = key_file_text(path, "public key");
  try {
    return parse_public_key(text, "public key " + path.string());
  } catch (const ConformanceError& e) {
    throw UsageError(std::string(e.what()) + " (give the KEY.pub that keygen or ssh-keygen wrote)");
  }
}

namespace {

// Creates `path` (never replacing a file: O_EXCL) with `mode` and writes `text` whole, then fsyncs.
void write_new_file(const std::filesystem::path& path, const std::string& text, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) {
    if (errno == EEXIST) throw UsageError(path.string() + " already exists; keygen never replaces a key (choose another --out)");
    throw WriteError("cannot create " + path.string() + ": " + std::strerror(errno));
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      throw WriteError("cannot write " + path.string() + ": " + std::strerror(error));
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  if (::close(fd) != 0 || !synced) throw WriteError("cannot write " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

void write_new_key_files(const std::filesystem::path& path, std::string_view comment) {
  const std::filesystem::path public_path = path.string() + ".pub";
  std::error_code ignored;
  if (std::filesystem::exists(std::filesystem::symlink_status(public_path, ignored))) {
    throw UsageError(public_path.string() + " already exists; keygen never replaces a key (choose another --out)");
  }
  const SshPrivateKey key = SshPrivateKey::generate();
  std::string text = key.openssh_file(comment);
  write_new_file(path, text, 0600);
  OPENSSL_cleanse(text.data(), text.size());
  write_new_file(public_path, key.public_key().line() + " " + std::string(comment) + "\n", 0644);
}

}  // namespace nnx
