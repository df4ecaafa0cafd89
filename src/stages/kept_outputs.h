// The outputs a run kept so that its verdicts can be re-judged without running anything again
// (doc/rejudge.md; `execute --keep-outputs`, a matrix's cells): per record (its profile and the ONNX Runtime
// version that computed them) and per case whose outputs were compared, the runtime's outputs, the reference's
// outputs they were compared with and the float64 oracle's where the record has one — after parity's own
// preparation (don't-care positions hidden alike), so the same comparison gives the same verdict.
//
// They live in a folder beside the document they belong to (`kept_outputs_folder`, the one rule: "<document
// stem>-outputs"), as ONNX TensorProto files (`r<I>/c<J>/<role>-<K>.pb`: what ONNX's test-data files are, read
// by any ONNX tool), listed with their dtype, shape and sha256 in the folder's `outputs.json` (format
// nnx.kept-outputs/1) beside the sha256 of the document. A type owns its encoding: `write_kept_outputs` writes
// the files first and the listing last (a reader never sees a listing of files not yet written), replacing an
// older kept-outputs folder (a folder there that holds anything else is refused, UsageError); `read_kept_outputs`
// reads one strictly: the listing's keys and types, every file present with its sha256 and the dtype and shape
// listed, the document's sha256 the one given (ConformanceError naming the file and the problem).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/tensor.h"

namespace nnx {

inline constexpr const char* kKeptOutputsFormat = "nnx.kept-outputs/1";
inline constexpr const char* kKeptOutputsListing = "outputs.json";

// One compared case: `outputs` and `references` one per output, in the same order, named as the graph's
// outputs; `oracle` empty (none) or one per output (nullopt where it has none).
struct KeptCase {
  std::string name;
  std::vector<Tensor> outputs;
  std::vector<Tensor> references;
  std::vector<std::optional<Tensor>> oracle;
};

struct KeptRecord {
  std::string runtime;  // the ONNX Runtime version that computed the outputs (the record's runtime.version)
  std::string profile;
  std::vector<KeptCase> cases;
};

struct KeptOutputs {
  std::string document_sha256;  // of the document's bytes as written
  std::vector<KeptRecord> records;
};

// "<stem>-outputs" beside `document`.
std::filesystem::path kept_outputs_folder(const std::filesystem::path& document);

void write_kept_outputs(const std::filesystem::path& folder, const KeptOutputs& kept);

// Removes an older kept-outputs folder at `folder` (a document written without them: nothing stale stays
// beside it); anything else there is refused as write_kept_outputs refuses it.
void remove_kept_outputs(const std::filesystem::path& folder);

// What write_kept_outputs asks of `folder` before it replaces it, asked by a front end before anything runs:
// absent, empty, or a kept-outputs folder (UsageError naming it otherwise).
void require_replaceable_kept_outputs(const std::filesystem::path& folder);

// `document_sha256`: the sha256 of the document the folder must belong to.
KeptOutputs read_kept_outputs(const std::filesystem::path& folder, const std::string& document_sha256);

}  // namespace nnx
