// The key and signature encodings of signed documents (base/ssh_wire.h, base/ssh_key.h, base/sshsig.h):
// RFC 8032's first Ed25519 vector derives its public key, a key file round-trips, a signature checks only
// over the exact bytes, key and namespace it was made for, and hostile key files and signatures (lengths
// past the end, foreign types, encrypted keys, bad padding, mismatched halves) are refused with a message.
// Interop with the real ssh-keygen is tests/e2e/test_signed_documents.py's.
#include "base/sshsig.h"

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "base/ssh_key.h"
#include "base/ssh_wire.h"

namespace nnx {
namespace {

std::array<unsigned char, 32> from_hex(const std::string& hex) {
  std::array<unsigned char, 32> out{};
  for (std::size_t i = 0; i < 32; ++i) out[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

const std::array<unsigned char, 32> kSeed = from_hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");

std::string refusal(const auto& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The openssh-key-v1 bytes of a key file's text, and back.
std::string body(const std::string& file) { return unarmor(file, "OPENSSH PRIVATE KEY", "test"); }
std::string rearmored(const std::string& bytes) { return armor("OPENSSH PRIVATE KEY", bytes); }

TEST(SshKey, DerivesRfc8032PublicKeyFromItsSeed) {
  const SshPrivateKey key = SshPrivateKey::from_seed(kSeed);
  EXPECT_EQ(key.public_key().bytes, from_hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"));
  EXPECT_EQ(key.public_key().line(), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea");
}

TEST(SshKey, PrivateKeyFileRoundTripsAndPublicLineParses) {
  const SshPrivateKey key = SshPrivateKey::from_seed(kSeed);
  const std::string file = key.openssh_file("someone");
  EXPECT_EQ(file.rfind("-----BEGIN OPENSSH PRIVATE KEY-----\n", 0), 0u);
  const SshPrivateKey read = parse_private_key(file, "k");
  EXPECT_EQ(read.seed(), kSeed);
  EXPECT_EQ(parse_public_key("# comment\n" + key.public_key().line() + " someone\n", "p"), key.public_key());
}

TEST(SshKey, RefusesEncryptedForeignDamagedAndTruncatedKeyFiles) {
  const std::string bytes = body(SshPrivateKey::from_seed(kSeed).openssh_file("c"));
  std::string encrypted = bytes;
  encrypted.replace(15 + 4, 4, "aes2");  // the cipher name "none" → "aes2"
  EXPECT_NE(refusal([&] { parse_private_key(rearmored(encrypted), "k"); }).find("encrypted"), std::string::npos);
  std::string checks = bytes;
  checks[bytes.size() - 30] ^= 1;  // inside the private section: the secret half no longer matches
  EXPECT_NE(refusal([&] { parse_private_key(rearmored(checks), "k"); }), "");
  for (std::size_t cut : {std::size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_NE(refusal([&] { parse_private_key(rearmored(bytes.substr(0, cut)), "k"); }), "") << cut;
  }
  std::string huge = bytes;
  huge.replace(15, 4, std::string("\xff\xff\xff\xff", 4));  // a cipher name 4 GiB long
  EXPECT_NE(refusal([&] { parse_private_key(rearmored(huge), "k"); }).find("truncated"), std::string::npos);
  EXPECT_NE(refusal([&] { parse_private_key(rearmored(bytes + "x"), "k"); }), "");
  EXPECT_NE(refusal([&] { parse_private_key("not a key", "k"); }).find("no -----BEGIN"), std::string::npos);
  EXPECT_NE(refusal([&] { parse_public_key("ssh-rsa AAAAB3NzaC1yc2E= x\n", "p"); }).find("ssh-ed25519"),
            std::string::npos);
}

TEST(SshWire, Base64RefusesWhatIsNotCanonical) {
  EXPECT_EQ(base64_decode(base64_encode("abcde"), "t"), "abcde");
  EXPECT_NE(refusal([] { base64_decode("YWJj=ZGU", "t"); }), "");
  EXPECT_NE(refusal([] { base64_decode("YWJ", "t"); }), "");
  EXPECT_NE(refusal([] { base64_decode("YW\nJj", "t"); }), "");
}

TEST(Sshsig, ChecksOnlyTheExactBytesKeyAndNamespaceItWasMadeFor) {
  const SshPrivateKey key = SshPrivateKey::from_seed(kSeed);
  const std::string signature = sshsig_sign("{\"max_abs_error\": 1e-07}", key, "nnx-conformance");
  EXPECT_EQ(signature.rfind("-----BEGIN SSH SIGNATURE-----\n", 0), 0u);
  EXPECT_EQ(refusal([&] { sshsig_check("{\"max_abs_error\": 1e-07}", signature, key.public_key(), "nnx-conformance", "s"); }), "");
  EXPECT_NE(refusal([&] { sshsig_check("{\"max_abs_error\": 3.0}", signature, key.public_key(), "nnx-conformance", "s"); })
                .find("does not match"),
            std::string::npos);
  EXPECT_NE(refusal([&] { sshsig_check("{\"max_abs_error\": 1e-07}", signature, key.public_key(), "file", "s"); })
                .find("namespace"),
            std::string::npos);
  const SshPrivateKey other = SshPrivateKey::generate();
  EXPECT_NE(refusal([&] { sshsig_check("{\"max_abs_error\": 1e-07}", signature, other.public_key(), "nnx-conformance", "s"); })
                .find("another key"),
            std::string::npos);
}

TEST(Sshsig, RefusesTruncatedAndForeignSignatureBlobs) {
  const SshPrivateKey key = SshPrivateKey::from_seed(kSeed);
  const std::string blob = unarmor(sshsig_sign("m", key, "n"), "SSH SIGNATURE", "t");
  for (std::size_t cut = 0; cut < blob.size(); cut += 7) {
    EXPECT_NE(refusal([&] { sshsig_check("m", armor("SSH SIGNATURE", blob.substr(0, cut)), key.public_key(), "n", "s"); }), "")
        << cut;
  }
  std::string version = blob;
  version[9] = 2;
  EXPECT_NE(refusal([&] { sshsig_check("m", armor("SSH SIGNATURE", version), key.public_key(), "n", "s"); }).find("version"),
            std::string::npos);
  EXPECT_NE(refusal([&] { sshsig_check("m", armor("SSH SIGNATURE", blob + "x"), key.public_key(), "n", "s"); }), "");
}

}  // namespace
}  // namespace nnx
