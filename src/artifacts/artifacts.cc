#include "artifacts/artifacts.h"

#include <optional>
#include <set>

#include "artifacts/artifact_folder.h"
#include "artifacts/artifact_path.h"
#include "base/failure.h"
#include "base/json_python.h"
#include "base/record_vocabulary.h"
#include "artifacts/layout.h"
#include "base/sha256.h"

namespace nnx {
namespace {

namespace artifacts_key = rf::artifacts_key;  // the record's artifacts object
namespace file_key = rf::file_key;            // artifacts.files[i]

}  // namespace

json ArtifactEntry::to_json() const {
  return json{{file_key::kPath, path}, {file_key::kRole, role}, {file_key::kBytes, bytes}, {file_key::kSha256, sha256}};
}

std::string external_location_text(const std::string& location) {
  return "external data location " + display_json(json(location));
}

namespace {

// Whether a record form's folder holds stored tensors (§10, §11), which get roles of their own.
bool holds_tensor_files(RecordForm form) {
  switch (form) {
    case RecordForm::named_tensors: return true;
    case RecordForm::brief: return false;
  }
  return false;
}

}  // namespace

std::vector<ArtifactEntry> build_manifest(const std::filesystem::path& folder,
                                          const std::vector<std::string>& external_locations, RecordForm form) {
  const bool tensor_files = holds_tensor_files(form);
  std::vector<FolderEntry> entries;
  try {
    entries = list_folder(folder);
  } catch (const ArtifactIoError& e) {
    throw StageFailure(FailureClass::checker_error, json(std::string("artifact folder: ") + e.what()));
  }
  std::set<std::string> external;
  std::vector<std::string> problems;
  for (const auto& location : external_locations) {
    std::string why;
    auto normal = normalize_artifact_path(location, &why);
    if (!normal) {
      problems.push_back(external_location_text(location) + " is not a valid artifact path (" + why + ")");
    } else {
      external.insert(*normal);
    }
  }
  std::set<std::string> written;
  std::vector<ArtifactEntry> manifest;
  for (const auto& e : entries) {
    if (e.kind == EntryKind::directory) continue;
    if (e.kind == EntryKind::symlink) {
      problems.push_back(e.path + ": a symlink");
      continue;
    }
    if (e.kind == EntryKind::other) {
      problems.push_back(e.path + ": not a regular file");
      continue;
    }
    FileDigest d = hash_file(folder, e.path, false);
    if (d.status != FileDigest::Status::ok) {
      problems.push_back(e.path + ": changed while it was listed");
      continue;
    }
    written.insert(e.path);
    const char* stored = tensor_files ? stored_tensor_role(e.path) : nullptr;
    const std::string role = e.path == kModelFile           ? rf::kRoleModel
                             : external.count(e.path) != 0 ? rf::kRoleExternalData
                             : stored != nullptr           ? stored
                                                           : rf::kRoleSidecar;
    manifest.push_back({e.path, role, d.bytes, d.sha256});
  }
  if (!written.count(kModelFile)) problems.push_back(std::string(kModelFile) + ": not written");
  for (const auto& location : external) {
    if (!written.count(location)) problems.push_back(location + ": referenced as external data but not written");
  }
  if (!problems.empty()) {
    std::string message = "the artifact folder cannot be listed as written:";
    for (const auto& p : problems) message += "\n  " + p;
    throw StageFailure(FailureClass::checker_error, json(message));
  }
  return manifest;
}

namespace {

using Listed = ArtifactEntry;  // path normalised; role: a sidecar's bytes are never kept

// Refuses a profile folder name that is not a plain name.
void require_plain_directory(const std::string& directory) {
  if (!is_plain_name(directory)) {
    throw ConformanceError("malformed record: artifacts.directory \"" + directory +
                           "\" is not a plain name ([A-Za-z0-9._-]+, not . or ..)");
  }
}

// Appends one listed file under its normalised path; ConformanceError for a malformed hash, a path the rule
// refuses or a path listed twice.
void add_listed(const ArtifactEntry& f, std::set<std::string>& paths, std::vector<Listed>& listed) {
  if (!is_sha256_hex(f.sha256)) {
    throw ConformanceError("malformed record: every artifacts.files entry needs a path, bytes and a sha256");
  }
  std::string why;
  auto normal = normalize_artifact_path(f.path, &why);
  if (!normal) throw ConformanceError("malformed record: artifact path \"" + f.path + "\": " + why);
  if (!paths.insert(*normal).second) {
    throw ConformanceError("malformed record: artifact path \"" + *normal + "\" is listed twice");
  }
  listed.push_back({*normal, f.role, f.bytes, f.sha256});
}

// The record's profile folder name and listed files, or ConformanceError naming what is malformed.
std::vector<Listed> listed_files(const json& record, std::string& directory) {
  if (!record.is_object() || !record.contains(rf::kArtifacts) || !record[rf::kArtifacts].is_object()) {
    throw ConformanceError("malformed record: no artifacts object");
  }
  const json& artifacts = record[rf::kArtifacts];
  if (!artifacts.contains(artifacts_key::kDirectory) || !artifacts[artifacts_key::kDirectory].is_string()) {
    throw ConformanceError("malformed record: artifacts.directory must be a string");
  }
  directory = artifacts[artifacts_key::kDirectory].get<std::string>();
  require_plain_directory(directory);
  if (!artifacts.contains(artifacts_key::kFiles) || !artifacts[artifacts_key::kFiles].is_array()) {
    throw ConformanceError("malformed record: artifacts.files must be a list");
  }
  std::vector<Listed> listed;
  std::set<std::string> paths;
  for (const auto& f : artifacts[artifacts_key::kFiles]) {
    if (!f.is_object() || !f.contains(file_key::kPath) || !f[file_key::kPath].is_string() ||
        !f.contains(file_key::kBytes) || !f[file_key::kBytes].is_number_unsigned() ||
        !f.contains(file_key::kSha256) || !f[file_key::kSha256].is_string()) {
      throw ConformanceError("malformed record: every artifacts.files entry needs a path, bytes and a sha256");
    }
    add_listed({f[file_key::kPath].get<std::string>(), "", f[file_key::kBytes].get<std::uint64_t>(),
                f[file_key::kSha256].get<std::string>()},
               paths, listed);
  }
  return listed;
}

// One listed file against the folder: its problem, if any (its bytes kept in `out` when asked, unless it is a
// sidecar or a stored tensor: nothing loads a sidecar, and parity reads each stored tensor again when it uses
// it, checked against the same listing (stages/stored_tensors.h), so both are hashed as they stream by).
void verify_file(const OpenFolder& folder, const Listed& l, bool keep_contents, VerifyOutcome& out) {
  keep_contents = keep_contents && l.role != rf::kRoleSidecar && stored_tensor_role(l.path) == nullptr;
  FileDigest d = folder.hash(l.path, keep_contents, l.bytes);
  switch (d.status) {
    case FileDigest::Status::missing: out.problems.push_back(l.path + ": missing"); break;
    case FileDigest::Status::symlink: out.problems.push_back(l.path + ": a symlink"); break;
    case FileDigest::Status::not_regular: out.problems.push_back(l.path + ": not a regular file"); break;
    case FileDigest::Status::too_large:
      out.problems.push_back(l.path + ": hash mismatch (larger than the recorded " + std::to_string(l.bytes) +
                             " bytes)");
      break;
    case FileDigest::Status::ok:
      if (d.bytes != l.bytes) {
        out.problems.push_back(l.path + ": hash mismatch (" + std::to_string(d.bytes) + " bytes, recorded " +
                               std::to_string(l.bytes) + ")");
      } else if (d.sha256 != l.sha256) {
        out.problems.push_back(l.path + ": hash mismatch");
      } else if (keep_contents) {
        out.contents[l.path] = std::move(d.contents);
      }
      break;
  }
}

// The listed files (normalised, each once) against root/<directory>: every problem together.
VerifyOutcome verify_listed(const std::string& directory, const std::vector<Listed>& listed,
                            const std::filesystem::path& root, bool keep_contents) {
  const std::filesystem::path folder = profile_folder(root, directory);
  VerifyOutcome out;
  std::vector<FolderEntry> entries;
  std::optional<OpenFolder> opened;  // listed and hashed through one descriptor
  try {
    opened.emplace(folder);  // opened: the root is a folder (asked only when it cannot be opened)
    entries = opened->list();
  } catch (const ArtifactIoError& e) {
    require_profile_folder_exists(root, directory);  // a mistyped root or folder: UsageError (layout.h)
    std::error_code ec;
    auto st = std::filesystem::symlink_status(folder, ec);
    if (!ec && st.type() == std::filesystem::file_type::symlink) {
      out.problems.push_back(directory + ": a symlink");
      return out;
    }
    throw;
  }
  std::set<std::string> listed_paths;
  for (const auto& l : listed) {
    verify_file(*opened, l, keep_contents, out);
    listed_paths.insert(l.path);
  }
  for (const auto& e : entries) {
    if (e.kind == EntryKind::directory || listed_paths.count(e.path)) continue;
    out.problems.push_back(e.path + (e.kind == EntryKind::symlink ? ": a symlink" : ": not in the record"));
  }
  if (!out.ok()) out.contents.clear();
  return out;
}

}  // namespace

VerifyOutcome verify_artifacts(const json& record, const std::filesystem::path& root, bool keep_contents) {
  std::string directory;
  const std::vector<Listed> listed = listed_files(record, directory);
  return verify_listed(directory, listed, root, keep_contents);
}

VerifyOutcome verify_artifacts(const std::string& directory, const std::vector<ArtifactEntry>& files,
                               const std::filesystem::path& root, bool keep_contents) {
  require_plain_directory(directory);
  std::vector<Listed> listed;
  std::set<std::string> paths;
  for (const auto& f : files) add_listed(f, paths, listed);
  return verify_listed(directory, listed, root, keep_contents);
}

}  // namespace nnx
