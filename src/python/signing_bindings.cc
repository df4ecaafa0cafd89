// The signed documents' functions of the Python module (bindings.h; doc/record-format.md, "Signed documents"):
// sign a written document, check a signature, write a new key pair, each over base/document_signature.h.
#include "base/document_signature.h"
#include "python/bindings.h"

namespace nnx::python {

void sign_document(const std::filesystem::path& document, const std::filesystem::path& key) {
  nnx::sign_document_file(document, nnx::read_private_key_file(key));
}

void check_signature(const std::filesystem::path& document, const std::filesystem::path& public_key) {
  nnx::check_document_signature(document, nnx::read_public_key_file(public_key));
}

void write_key_pair(const std::filesystem::path& key, const std::string& comment) {
  nnx::write_new_key_files(key, comment);
}

}  // namespace nnx::python
