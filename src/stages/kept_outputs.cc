#include "stages/kept_outputs.h"

#include <cstdint>
#include <span>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/json_fields.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/sha256.h"
#include "onnx_file/tensor_proto.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The listing's keys, spelled once for the writer and the reader.
namespace key {
constexpr const char* kFormat = "format";
constexpr const char* kDocumentSha256 = "document_sha256";
constexpr const char* kRecords = "records";
constexpr const char* kRuntime = "runtime";
constexpr const char* kProfile = "profile";
constexpr const char* kCases = "cases";
constexpr const char* kCase = "case";
constexpr const char* kOutputs = "outputs";
constexpr const char* kReferences = "references";
constexpr const char* kOracle = "oracle";
constexpr const char* kName = "name";
constexpr const char* kDtype = "dtype";
constexpr const char* kShape = "shape";
constexpr const char* kFile = "file";
constexpr const char* kSha256 = "sha256";
}  // namespace key

// A tensor file's bytes are at most what its file holds; a listing names no file larger than this.
constexpr std::size_t kMaxTensorFileBytes = std::size_t{1} << 32;

json write_tensor(const fs::path& folder, const std::string& file, const Tensor& tensor) {
  const std::string bytes = encode_tensor_proto(tensor);
  write_file_atomically(folder / file, bytes);
  return json{{key::kName, tensor.name},   {key::kDtype, std::string(dtype_name(tensor.dtype))},
              {key::kShape, tensor.shape}, {key::kFile, file},
              {key::kSha256, sha256_hex(bytes)}};
}

json case_listing(const fs::path& folder, const std::string& prefix, const KeptCase& kept) {
  json outputs = json::array(), references = json::array(), oracle = json::array();
  for (std::size_t k = 0; k < kept.outputs.size(); ++k) {
    outputs.push_back(write_tensor(folder, prefix + "runtime-" + std::to_string(k) + ".pb", kept.outputs[k]));
  }
  for (std::size_t k = 0; k < kept.references.size(); ++k) {
    references.push_back(write_tensor(folder, prefix + "reference-" + std::to_string(k) + ".pb", kept.references[k]));
  }
  for (std::size_t k = 0; k < kept.oracle.size(); ++k) {
    oracle.push_back(kept.oracle[k] ? write_tensor(folder, prefix + "oracle-" + std::to_string(k) + ".pb", *kept.oracle[k])
                                    : json());
  }
  return json{{key::kCase, kept.name}, {key::kOutputs, outputs}, {key::kReferences, references}, {key::kOracle, oracle}};
}

// Reads one listed tensor: the entry's keys, the file inside the folder with its sha256, a TensorProto of the
// name, dtype and shape listed.
Tensor read_tensor(const fs::path& folder, const json& entry, const std::string& where) {
  std::vector<std::string> problems;
  FieldReader read(entry, where, problems);
  std::string name, dtype, file, sha256;
  std::vector<std::int64_t> shape;
  read.string(key::kName, name), read.string(key::kDtype, dtype), read.integer_list(key::kShape, shape);
  read.string(key::kFile, file), read.string(key::kSha256, sha256);
  read.finish();
  const fs::path relative(file);
  if (problems.empty() && (relative.is_absolute() || file.find("..") != std::string::npos || file.empty())) {
    problems.push_back(where + ".file: " + file + " is not a path inside the folder");
  }
  if (!problems.empty()) throw ConformanceError(problems.front());
  const fs::path path = folder / relative;
  const std::string bytes = read_file_bytes(path, kMaxTensorFileBytes, "the kept-output file limit", ErrorKind::refused);
  if (sha256_hex(bytes) != sha256) {
    throw ConformanceError(path.string() + ": its sha256 is not the one " + kKeptOutputsListing + " lists (" + where +
                           "): the kept outputs were changed after they were written");
  }
  Tensor tensor = decode_tensor_proto(std::as_bytes(std::span(bytes.data(), bytes.size())), path.string(), bytes.size());
  if (tensor.name != name || std::string(dtype_name(tensor.dtype)) != dtype || tensor.shape != shape) {
    throw ConformanceError(path.string() + ": not the tensor " + kKeptOutputsListing + " lists at " + where +
                           " (name, dtype or shape differ)");
  }
  return tensor;
}

std::vector<Tensor> read_tensors(const fs::path& folder, const json& list, const std::string& where) {
  std::vector<Tensor> tensors;
  for (std::size_t k = 0; k < list.size(); ++k) {
    tensors.push_back(read_tensor(folder, list[k], where + "[" + std::to_string(k) + "]"));
  }
  return tensors;
}

KeptCase read_case(const fs::path& folder, const json& entry, const std::string& where) {
  std::vector<std::string> problems;
  FieldReader read(entry, where, problems);
  KeptCase kept;
  read.string(key::kCase, kept.name);
  const json* outputs = read.array(key::kOutputs);
  const json* references = read.array(key::kReferences);
  const json* oracle = read.array(key::kOracle);
  read.finish();
  if (problems.empty() && outputs->size() != references->size()) {
    problems.push_back(where + ": " + std::to_string(outputs->size()) + " outputs but " +
                       std::to_string(references->size()) + " references");
  }
  if (problems.empty() && !oracle->empty() && oracle->size() != outputs->size()) {
    problems.push_back(where + ".oracle: one per output or none");
  }
  if (!problems.empty()) throw ConformanceError(problems.front());
  kept.outputs = read_tensors(folder, *outputs, where + ".outputs");
  kept.references = read_tensors(folder, *references, where + ".references");
  for (std::size_t k = 0; k < oracle->size(); ++k) {
    const json& o = (*oracle)[k];
    kept.oracle.push_back(o.is_null() ? std::nullopt
                                      : std::optional(read_tensor(folder, o, where + ".oracle[" + std::to_string(k) + "]")));
  }
  return kept;
}

KeptRecord read_record(const fs::path& folder, const json& entry, const std::string& where) {
  std::vector<std::string> problems;
  FieldReader read(entry, where, problems);
  KeptRecord kept;
  read.string(key::kRuntime, kept.runtime), read.string(key::kProfile, kept.profile);
  const json* cases = read.array(key::kCases);
  read.finish();
  if (!problems.empty()) throw ConformanceError(problems.front());
  for (std::size_t j = 0; j < cases->size(); ++j) {
    kept.cases.push_back(read_case(folder, (*cases)[j], where + ".cases[" + std::to_string(j) + "]"));
  }
  return kept;
}

}  // namespace

void require_replaceable_kept_outputs(const fs::path& folder) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(folder, ec))) return;
  if (!fs::is_directory(fs::symlink_status(folder, ec))) {
    throw UsageError(folder.string() + " exists and is not a folder: the kept outputs go there (move it away)");
  }
  if (fs::is_empty(folder, ec)) return;
  bool ours = false;
  try {
    const json listing = read_strict_json_file(folder / kKeptOutputsListing);
    ours = listing.is_object() && listing.value(key::kFormat, json()) == kKeptOutputsFormat;
  } catch (const Error&) {
  }
  if (!ours) {
    throw UsageError(folder.string() + " holds files that are not kept outputs (no " + kKeptOutputsListing + " of " +
                     kKeptOutputsFormat + "): move it away or name another --output");
  }
}

fs::path kept_outputs_folder(const fs::path& document) {
  return document.parent_path() / (document.stem().string() + "-outputs");
}

void remove_kept_outputs(const fs::path& folder) {
  require_replaceable_kept_outputs(folder);  // an older kept-outputs folder, nothing else
  std::error_code ec;
  fs::remove_all(folder, ec);
  if (ec) throw WriteError("cannot remove the older kept outputs " + folder.string() + ": " + ec.message());
}

void write_kept_outputs(const fs::path& folder, const KeptOutputs& kept) {
  remove_kept_outputs(folder);
  json records = json::array();
  for (std::size_t i = 0; i < kept.records.size(); ++i) {
    const KeptRecord& record = kept.records[i];
    json cases = json::array();
    for (std::size_t j = 0; j < record.cases.size(); ++j) {
      cases.push_back(case_listing(folder, "r" + std::to_string(i) + "/c" + std::to_string(j) + "/", record.cases[j]));
    }
    records.push_back(json{{key::kRuntime, record.runtime}, {key::kProfile, record.profile}, {key::kCases, cases}});
  }
  const json listing{{key::kFormat, kKeptOutputsFormat}, {key::kDocumentSha256, kept.document_sha256},
                     {key::kRecords, records}};
  write_file_atomically(folder / kKeptOutputsListing, dumps_pretty(listing) + "\n");  // last: every file is there
}

KeptOutputs read_kept_outputs(const fs::path& folder, const std::string& document_sha256) {
  const fs::path listing_path = folder / kKeptOutputsListing;
  std::error_code ec;
  if (!fs::exists(listing_path, ec)) {
    throw UsageError("no kept outputs: " + listing_path.string() +
                     " does not exist (execute --keep-outputs and a matrix keep them beside their --output)");
  }
  const json listing = read_strict_json_file(listing_path);
  const std::string where = listing_path.string();
  std::vector<std::string> problems;
  FieldReader read(listing, where, problems);
  std::string format;
  KeptOutputs kept;
  read.string(key::kFormat, format), read.string(key::kDocumentSha256, kept.document_sha256);
  const json* records = read.array(key::kRecords);
  read.finish();
  if (problems.empty() && format != kKeptOutputsFormat) {
    problems.push_back(where + ".format: " + format + ", not " + kKeptOutputsFormat);
  }
  if (!problems.empty()) throw ConformanceError(problems.front());
  if (kept.document_sha256 != document_sha256) {
    throw ConformanceError(where + " belongs to another document (its document_sha256 is " + kept.document_sha256 +
                           ", the document's bytes hash to " + document_sha256 + ")");
  }
  for (std::size_t i = 0; i < records->size(); ++i) {
    kept.records.push_back(read_record(folder, (*records)[i], where + ".records[" + std::to_string(i) + "]"));
  }
  return kept;
}

}  // namespace nnx
