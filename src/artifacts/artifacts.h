// The artifact manifest of a profile folder and its verification (doc/record-format.md §4 check, §7 verify).
//
// `build_manifest` lists every file the exporter wrote with its role (`model` for model.onnx,
// `external-data` for a location some tensor references, a module record's stored tensors their own roles
// (layout.h stored_tensor_role: test-input, test-output, oracle-output, refusal-input), `sidecar`
// otherwise), size and SHA-256; a symlink, a non-regular entry or a referenced location that was not
// written throws StageFailure(checker-error).
// `verify_artifacts` re-checks a record's files byte for byte before anything is loaded: every listed
// file must exist as a regular file (never a symlink) with its size and SHA-256, and every file found must
// be listed. All problems are returned together; a malformed record throws ConformanceError, a root that is
// no folder or a profile folder that does not exist UsageError (layout.h require_profile_folder_exists), and
// an unreadable file or folder ArtifactIoError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifacts/layout.h"
#include "base/failure.h"
#include "base/model_kind.h"

namespace nnx {

using json = nlohmann::json;

struct ArtifactEntry {
  std::string path;
  std::string role;  // rf::kRoleModel | rf::kRoleExternalData | rf::kRoleSidecar
  std::uint64_t bytes = 0;
  std::string sha256;
  json to_json() const;
};

// `external data location "<location>"` for a message: the location written as a JSON string (a NUL as
// \u0000, other control characters escaped, invalid UTF-8 replaced), because a thrown message is read back
// as a C string (what()) and would end at a raw NUL. The check and load stages name a location with it.
std::string external_location_text(const std::string& location);

// The manifest of a profile's folder for a record of form `form`: a named-tensors record's stored tensors
// (§10, §11) get their roles (layout.h stored_tensor_role); the brief's record's folder holds none.
std::vector<ArtifactEntry> build_manifest(const std::filesystem::path& folder,
                                          const std::vector<std::string>& external_locations, RecordForm form);

// The failure class of artifacts that do not verify (or cannot be read), whoever verifies them: the load
// stage of run and execute records it, and verify reports it with its exit code (app/check_document.h); the
// one verdict of doc/record-format.md §7 "One verdict per problem".
inline constexpr FailureClass kUnverifiedArtifacts = FailureClass::hash_mismatch;

struct VerifyOutcome {
  std::vector<std::string> problems;                       // "<path>: missing", "<path>: hash mismatch", ...
  // Verified bytes, when asked to keep them: every listed file's but a sidecar's (nothing loads one: it is
  // hashed as it is read, never held whole; a record read from JSON has no roles, so every file's) and a
  // stored tensor's (layout.h stored_tensor_role: parity reads each again, stages/stored_tensors.h).
  std::map<std::string, std::vector<std::byte>> contents;
  bool ok() const { return problems.empty(); }
};

// `record` is a record object (only its `artifacts` section is read).
VerifyOutcome verify_artifacts(const json& record, const std::filesystem::path& root, bool keep_contents = false);
// The same for a profile folder name and its listed files, as a typed record holds them (record/record.h).
VerifyOutcome verify_artifacts(const std::string& directory, const std::vector<ArtifactEntry>& files,
                               const std::filesystem::path& root, bool keep_contents = false);

}  // namespace nnx
