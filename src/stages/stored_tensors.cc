// A module record's stored tensors, read and checked one at a time (stored_tensors.h).
#include "stages/stored_tensors.h"

#include <utility>

#include "artifacts/artifact_folder.h"
#include "artifacts/artifact_path.h"
#include "artifacts/layout.h"
#include "base/error.h"

namespace nnx {

StoredTensors::StoredTensors(std::filesystem::path folder, const std::vector<ArtifactEntry>& listed)
    : folder_(std::move(folder)) {
  for (const auto& f : listed) {
    const auto path = normalize_artifact_path(f.path);
    if (path && stored_tensor_role(*path) != nullptr) listed_[*path] = {f.bytes, f.sha256};
  }
}

std::vector<std::byte> StoredTensors::read(const std::string& relative) const {
  const auto path = normalize_artifact_path(relative);
  const auto found = path ? listed_.find(*path) : listed_.end();
  if (found == listed_.end()) throw ConformanceError("the stored tensor " + relative + " is not among the verified files");
  FileDigest d = hash_file(folder_, found->first, /*keep_contents=*/true, found->second.bytes);
  if (d.status != FileDigest::Status::ok || d.bytes != found->second.bytes || d.sha256 != found->second.sha256) {
    throw ConformanceError("the stored tensor " + relative + " changed since the load stage verified it (its size "
                           "or SHA-256 is no longer the record's): run verify to see what changed");
  }
  return std::move(d.contents);
}

}  // namespace nnx
