// A document the tool writes (report, runtime matrix, re-executed report), signed beside itself:
// `<document>.sig` holds an SSHSIG signature (base/sshsig.h) of the document's exact bytes, namespace
// "nnx-conformance", made with a key the user holds (doc/record-format.md, "Signed documents"). Nothing is
// added inside the document: its bytes are the same signed or not. The key's bytes are never written
// anywhere but the key files keygen makes (base/ssh_key.h).
//
// `sign_document_file` writes `<document>.sig` atomically (base/atomic_file.h). `check_document_signature`
// refuses with a ConformanceError (exit 1) a document with no `.sig` beside it ("is not signed"), a
// signature by another key and a document whose bytes changed after signing; a document or signature that
// cannot be read is refused the same way, naming the file. The signature is checked over the bytes read
// here; validate and verify then read the document again for their rules (a swap between the two reads is
// out of reach, as for any file replaced while it is being checked).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "base/ssh_key.h"

namespace nnx {

inline constexpr std::string_view kSignatureNamespace = "nnx-conformance";

std::filesystem::path signature_path(const std::filesystem::path& document);

void sign_document_file(const std::filesystem::path& document, const SshPrivateKey& key);

void check_document_signature(const std::filesystem::path& document, const SshPublicKey& key);

}  // namespace nnx
