// A module record's stored tensors (doc/record-format.md §10), read one at a time when parity uses them
// rather than held from the load stage on, so that a run or an execute holds one case's tensors, not every
// case's. The load stage verifies every listed file first (artifacts.h, each stored tensor hashed as it
// streams by) and hands this reader the listing; each `read` opens the profile folder without following a
// link (artifact_folder.h), reads the file whole and checks its size and SHA-256 against that listing again,
// so the bytes parity compares are the bytes the record hashes, even when a file is swapped after load: a file
// changed since is a ConformanceError naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "artifacts/artifacts.h"

namespace nnx {

class StoredTensors {
 public:
  StoredTensors() = default;  // none: a record of the brief's form stores no tensor
  // The stored tensors among `listed` (layout.h stored_tensor_role) in the profile folder `folder`.
  StoredTensors(std::filesystem::path folder, const std::vector<ArtifactEntry>& listed);

  // The verified bytes of the stored tensor at `relative`; ConformanceError when the record lists no such
  // stored tensor or the file is no longer what it lists.
  std::vector<std::byte> read(const std::string& relative) const;

 private:
  struct Listed {
    std::uint64_t bytes = 0;
    std::string sha256;
  };
  std::filesystem::path folder_;
  std::map<std::string, Listed> listed_;  // by normalised path
};

}  // namespace nnx
