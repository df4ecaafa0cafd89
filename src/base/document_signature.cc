#include "base/document_signature.h"

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/json_strict.h"
#include "base/ssh_wire.h"
#include "base/sshsig.h"

namespace nnx {

std::filesystem::path signature_path(const std::filesystem::path& document) {
  return document.string() + ".sig";
}

void sign_document_file(const std::filesystem::path& document, const SshPrivateKey& key) {
  const std::string bytes = read_file_bytes(document, kMaxJsonTextBytes, "the JSON limit", ErrorKind::refused);
  write_file_atomically(signature_path(document), sshsig_sign(bytes, key, kSignatureNamespace));
}

void check_document_signature(const std::filesystem::path& document, const SshPublicKey& key) {
  const std::filesystem::path sig = signature_path(document);
  std::error_code ignored;
  if (!std::filesystem::exists(sig, ignored)) {
    throw ConformanceError(document.string() + " is not signed: no " + sig.string() + " beside it");
  }
  const std::string armored = read_file_bytes(sig, kMaxArmoredBytes, "a signature's limit", ErrorKind::refused);
  const std::string bytes = read_file_bytes(document, kMaxJsonTextBytes, "the JSON limit", ErrorKind::refused);
  sshsig_check(bytes, armored, key, kSignatureNamespace, "signature " + sig.string());
}

}  // namespace nnx
