// Ed25519 keys in OpenSSH's files, read and written by our own small code over OpenSSL's libcrypto
// (doc/record-format.md, "Signed documents"): the private key file `ssh-keygen -t ed25519 -N ''` writes
// ("-----BEGIN OPENSSH PRIVATE KEY-----", openssh-key-v1, cipher and kdf "none", one key) and the public
// line of KEY.pub ("ssh-ed25519 <base64> [comment]"). Only unencrypted Ed25519 keys are taken: an encrypted
// key, another key type, more than one key, check integers that differ, a public half that does not match
// the private seed, bad padding or trailing bytes are each a ConformanceError (parse_*) naming the file and
// the problem (the way out for an encrypted key: `ssh-keygen -p -N '' -f KEY`). A file is read with a 64 KiB
// bound. The seed is wiped from memory when a key is destroyed and never appears in a message.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>

namespace nnx {

inline constexpr std::string_view kSshEd25519 = "ssh-ed25519";

struct SshPublicKey {
  std::array<unsigned char, 32> bytes{};
  // The key as the wire encodes it: string "ssh-ed25519", string key (what SSHSIG signs over).
  std::string wire() const;
  // "ssh-ed25519 <base64>" (the public line and an allowed_signers entry's key).
  std::string line() const;
  bool operator==(const SshPublicKey&) const = default;
};

class SshPrivateKey {
 public:
  SshPrivateKey() = default;
  SshPrivateKey(const SshPrivateKey&) = delete;
  SshPrivateKey& operator=(const SshPrivateKey&) = delete;
  SshPrivateKey(SshPrivateKey&& other) noexcept;
  SshPrivateKey& operator=(SshPrivateKey&& other) noexcept;
  ~SshPrivateKey();

  const std::array<unsigned char, 32>& seed() const { return seed_; }
  const SshPublicKey& public_key() const { return public_; }
  // A fresh key from the system's random source.
  static SshPrivateKey generate();
  // The key whose private seed is `seed` (its public half derived).
  static SshPrivateKey from_seed(const std::array<unsigned char, 32>& seed);
  // The whole openssh-key-v1 file text, unencrypted, with `comment`.
  std::string openssh_file(std::string_view comment) const;

 private:
  std::array<unsigned char, 32> seed_{};
  SshPublicKey public_;
};

// The key of an OpenSSH private key file's text; `what` names the file in messages.
SshPrivateKey parse_private_key(std::string_view text, const std::string& what);
// The key of a public line "ssh-ed25519 <base64> [comment]" (the first line that is not blank or '#').
SshPublicKey parse_public_key(std::string_view text, const std::string& what);

// The key of a file: a file that cannot be read or holds no usable key is a UsageError (exit 2) naming the
// file, the problem and where a key comes from.
SshPrivateKey read_private_key_file(const std::filesystem::path& path);
SshPublicKey read_public_key_file(const std::filesystem::path& path);

// Writes KEY (mode 0600, refusing an existing file) and KEY.pub: what `nnx-conformance keygen --out KEY`
// does. Throws UsageError for an existing file, WriteError when a file cannot be written.
void write_new_key_files(const std::filesystem::path& path, std::string_view comment);

}  // namespace nnx
