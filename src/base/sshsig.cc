#include "base/sshsig.h"

#include <openssl/evp.h>

#include <memory>

#include "base/error.h"
#include "base/ssh_wire.h"

namespace nnx {
namespace {

constexpr std::string_view kPreamble = "SSHSIG";
constexpr std::string_view kLabel = "SSH SIGNATURE";
constexpr std::uint32_t kVersion = 1;

using PkeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

std::string digest(std::string_view hash, std::string_view message) {
  const EVP_MD* md = hash == "sha512" ? EVP_sha512() : EVP_sha256();
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(message.data(), message.size(), out, &length, md, nullptr) != 1) {
    throw ConformanceError("OpenSSL's libcrypto cannot compute " + std::string(hash));
  }
  return {reinterpret_cast<const char*>(out), length};
}

// What the signature covers (PROTOCOL.sshsig, "Signed Data").
std::string signed_data(std::string_view message, std::string_view name_space, std::string_view hash) {
  SshWriter writer;
  writer.raw(kPreamble);
  writer.string(name_space);
  writer.string("");
  writer.string(hash);
  writer.string(digest(hash, message));
  return writer.bytes();
}

}  // namespace

std::string sshsig_sign(std::string_view message, const SshPrivateKey& key, std::string_view name_space) {
  const std::string data = signed_data(message, name_space, "sha512");
  PkeyPtr pkey(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, key.seed().data(), key.seed().size()),
               &EVP_PKEY_free);
  MdCtxPtr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  unsigned char signature[64];
  std::size_t length = sizeof signature;
  if (!pkey || !ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1 ||
      EVP_DigestSign(ctx.get(), signature, &length, reinterpret_cast<const unsigned char*>(data.data()),
                     data.size()) != 1 || length != 64) {
    throw ConformanceError("OpenSSL's libcrypto cannot sign with Ed25519");
  }
  SshWriter inner;
  inner.string(kSshEd25519);
  inner.string({reinterpret_cast<const char*>(signature), length});
  SshWriter blob;
  blob.raw(kPreamble);
  blob.u32(kVersion);
  blob.string(key.public_key().wire());
  blob.string(name_space);
  blob.string("");
  blob.string("sha512");
  blob.string(inner.bytes());
  return armor(kLabel, blob.bytes());
}

void sshsig_check(std::string_view message, std::string_view armored, const SshPublicKey& expected,
                  std::string_view name_space, const std::string& what) {
  const std::string blob = unarmor(armored, kLabel, what);
  SshReader reader(blob, what);
  reader.expect_raw(kPreamble, "its preamble (SSHSIG)");
  if (reader.u32() != kVersion) reader.refuse("an SSHSIG version other than 1");
  const std::string_view signer = reader.string();
  if (signer != expected.wire()) reader.refuse("it was signed by another key than the one given");
  if (reader.string() != name_space) reader.refuse("its namespace is not \"" + std::string(name_space) + "\"");
  reader.string();  // reserved
  const std::string hash(reader.string());
  if (hash != "sha512" && hash != "sha256") reader.refuse("its hash \"" + hash + "\" is neither sha512 nor sha256");
  SshReader inner(reader.string(), what + ": its signature");
  reader.expect_end();
  inner.expect_string(kSshEd25519, "its signature type");
  const std::string_view signature = inner.string();
  inner.expect_end();
  if (signature.size() != 64) inner.refuse("an Ed25519 signature of " + std::to_string(signature.size()) + " bytes");
  const std::string data = signed_data(message, name_space, hash);
  PkeyPtr pkey(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, expected.bytes.data(), expected.bytes.size()),
               &EVP_PKEY_free);
  MdCtxPtr ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!pkey || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1) {
    throw ConformanceError("OpenSSL's libcrypto cannot check an Ed25519 signature");
  }
  if (EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                       reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    throw ConformanceError(what + ": the signature does not match the document's bytes (the document was "
                                  "edited after it was signed, or the signature belongs to another document)");
  }
}

}  // namespace nnx
