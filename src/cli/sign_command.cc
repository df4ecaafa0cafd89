// `--sign-key KEY`, `--key PUB` and `keygen` of the command line; contract in cli/commands.h ("Signed
// documents"). The key's bytes go only into the signature's computation: never printed, never written.
#include <CLI/CLI.hpp>

#include <iostream>

#include "base/document_signature.h"
#include "base/error.h"
#include "base/failure.h"
#include "cli/commands.h"

namespace nnx::cli {

void add_sign_key_option(CLI::App& command, std::string& key) {
  command.add_option("--sign-key", key,
                     "sign the written document with this Ed25519 OpenSSH private key (from `keygen` or "
                     "`ssh-keygen -t ed25519 -N ''`): OUT.sig beside it, checked by `validate --key` or "
                     "`ssh-keygen -Y verify -n nnx-conformance`");
}

DocumentSigner::DocumentSigner(const std::string& key_path, const std::filesystem::path& document, PathUse& use)
    : document_(document) {
  if (key_path.empty()) return;
  key_ = read_private_key_file(key_path);
  use.inputs.push_back({"--sign-key", key_path});
  use.outputs.push_back({"the signature", signature_path(document)});
}

void DocumentSigner::sign() const {
  if (!key_) return;
  sign_document_file(document_, *key_);
}

void DocumentSigner::print() const {
  if (key_) std::cout << "signature: " << signature_path(document_).string() << "\n";
}

void add_keygen_command(CLI::App& app, KeygenArgs& args) {
  auto* keygen = app.add_subcommand("keygen", "write a new Ed25519 key pair (OpenSSH files, no passphrase) for --sign-key");
  keygen->add_option("--out", args.out, "the private key file (KEY; KEY.pub beside it); never replaced")->required();
  keygen->add_option("--comment", args.comment, "the public key's comment (default: nnx-conformance)");
}

int keygen_command(const KeygenArgs& args) {
  write_new_key_files(args.out, args.comment.empty() ? "nnx-conformance" : args.comment);
  std::cout << "private key: " << args.out << " (keep it; sign with --sign-key " << args.out << ")\n"
            << "public key: " << args.out << ".pub (publish it; check with --key " << args.out << ".pub)\n";
  return kExitPassed;
}

std::optional<SshPublicKey> public_key_of(const std::string& path) {
  if (path.empty()) return std::nullopt;
  return read_public_key_file(path);
}

std::string check_signature_of(const std::string& file, const std::optional<SshPublicKey>& key) {
  if (!key) return "";
  try {
    check_document_signature(file, *key);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace nnx::cli
