// Detached signatures in OpenSSH's SSHSIG format (PROTOCOL.sshsig in OpenSSH's sources), Ed25519 and
// SHA-512, armored "-----BEGIN SSH SIGNATURE-----": what `ssh-keygen -Y sign -n NAMESPACE` writes and
// `ssh-keygen -Y verify` checks (doc/record-format.md, "Signed documents"). The signed bytes are
// "SSHSIG" || string namespace || string "" || string "sha512" || string SHA-512(message).
//
// `sshsig_check` refuses, with a ConformanceError saying which: a text that is not one armored SSHSIG
// blob (bounded, base/ssh_wire.h), a version other than 1, a key other than ssh-ed25519, another namespace,
// a hash other than sha256 or sha512, a signature made by another key than `expected`, and a signature that
// does not match the message's bytes (an edited document).
#pragma once

#include <string>
#include <string_view>

#include "base/ssh_key.h"

namespace nnx {

// The armored signature of `message` by `key` in `name_space`.
std::string sshsig_sign(std::string_view message, const SshPrivateKey& key, std::string_view name_space);

// Throws ConformanceError (prefixed with `what`) unless `armored` is `expected`'s signature of `message`.
void sshsig_check(std::string_view message, std::string_view armored, const SshPublicKey& expected,
                  std::string_view name_space, const std::string& what);

}  // namespace nnx
