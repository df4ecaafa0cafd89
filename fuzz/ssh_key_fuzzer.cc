// libFuzzer target: the signing files' readers (base/ssh_key.h, base/sshsig.h, base/ssh_wire.h) on any
// bytes: an OpenSSH private key file, a public key line and an armored SSHSIG signature.
//
// Invariants checked for every input:
//  * a refusal is a ConformanceError that says why (non-empty message) — never another exception, a crash or
//    a read past the input (ASan);
//  * a private key that is accepted is consistent: its public half is the one its seed derives, and the file
//    our writer makes of it reads back to the same seed;
//  * a signature that is accepted for the fixed message and key is also accepted again (no state) and is
//    refused for another message (the check binds the bytes).
// A violated invariant calls __builtin_trap(), which libFuzzer reports as a crash with the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"
#include "base/ssh_key.h"
#include "base/sshsig.h"

namespace {

[[noreturn]] void finding() { __builtin_trap(); }

template <typename Call>
bool accepted(const Call& call) {
  try {
    call();
    return true;
  } catch (const nnx::ConformanceError& e) {
    if (std::string_view(e.what()).empty()) finding();
    return false;
  }
}

const nnx::SshPrivateKey& fixed_key() {
  static const nnx::SshPrivateKey key = nnx::SshPrivateKey::from_seed({1, 2, 3, 4, 5, 6, 7, 8});
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  accepted([&] {
    const nnx::SshPrivateKey key = nnx::parse_private_key(input, "fuzz");
    if (!(nnx::SshPrivateKey::from_seed(key.seed()).public_key() == key.public_key())) finding();
    if (nnx::parse_private_key(key.openssh_file("c"), "again").seed() != key.seed()) finding();
  });
  accepted([&] { nnx::parse_public_key(input, "fuzz"); });
  const auto& key = fixed_key().public_key();
  if (accepted([&] { nnx::sshsig_check("message", input, key, "nnx-conformance", "fuzz"); })) {
    if (!accepted([&] { nnx::sshsig_check("message", input, key, "nnx-conformance", "fuzz"); })) finding();
    if (accepted([&] { nnx::sshsig_check("massage", input, key, "nnx-conformance", "fuzz"); })) finding();
  }
  return 0;
}
