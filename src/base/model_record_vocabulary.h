// The successor record format, nnx.model-conformance/1 (doc/record-format.md §11): one format for every model
// kind, the kind a variant under the record's `model` key. Its other 18 keys are a module record's (§10,
// module_record_vocabulary.h) in the same order, `model` standing where a module record has `module`.
// Two kinds write it: an ONNX file (a profile naming "onnx") and the built-in net run or executed with other
// session settings or provider than the brief's; module records stay nnx.module-conformance/1 and the tested
// profiles' records with the brief's settings nnx.export-conformance/1. Names only (the kinds
// themselves and what each is: base/model_kind.h).
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "base/module_record_vocabulary.h"

// kModelFormat, "nnx.model-conformance/1", is in record_vocabulary.h's list of every record format.
namespace nnx::rf {

inline constexpr const char* kModel = "model";

inline constexpr std::array<const char*, 19> kModelRecordKeys = {
    kFormat,   kProfile,  kStatus,   kFailure,   kLevel,   kSource,     kModel,      kInputs,      kDims,  kOutputs,
    kExporter, kOpset,    kArtifacts, kVersions, kRuntime, kInputCases, kTolerances, kModelState, kStages};

namespace model_key {  // model: the kind's variant
inline constexpr const char* kKind = "kind";
inline constexpr const char* kOnnx = "onnx";        // onnx-file: the source file as the profile named it
inline constexpr const char* kData = "data";        // onnx-file: the data-set folder as the profile named it
inline constexpr const char* kFactory = "factory";  // onnx-file: the module it is checked against, or null
inline constexpr const char* kBind = "bind";        // onnx-file: {graph input: forward parameter}
// ... and the module identity of §10 (module_key: class, source_sha256, state_sha256), null without a factory.
inline constexpr std::array<const char*, 8> kOnnxFileKeys = {kKind,        kOnnx, kData, kFactory, kBind, module_key::kClass,
                                                             module_key::kSourceSha256, module_key::kStateSha256};
// built-in: the tested profiles' network (§2) as its v1 record states it (base/built_in_model_record.h).
inline constexpr const char* kConfig = "config";  // v1's config, weights_sha256 included
inline constexpr const char* kDtype = "dtype";    // v1's dtype
inline constexpr std::array<const char*, 3> kBuiltInKeys = {kKind, kConfig, kDtype};
}  // namespace model_key

inline constexpr const char* kKindOnnxFile = "onnx-file";
inline constexpr const char* kKindBuiltIn = "built-in";  // the built-in net run with other settings than the brief's
inline constexpr const char* kBatchDim = "batch";         // the built-in net's one symbolic dim
inline constexpr const char* kExporterImported = "onnx-file";  // exporter.name of an imported file

namespace imported_key {  // stages.export.detail.imported of an onnx-file record
inline constexpr const char* kImported = "imported";
inline constexpr const char* kSource = "source";         // the path the profile named
inline constexpr const char* kSha256 = "sha256";         // of the source's bytes, hashed while copied
inline constexpr const char* kBytes = "bytes";
inline constexpr const char* kExternal = "external";     // [{location, sha256, bytes}] copied beside it
inline constexpr const char* kProducer = "producer";     // {producer_name, producer_version, domain, model_version, ir_version}
inline constexpr const char* kDataSets = "data_sets";    // [source folder name of each case], in case order
}  // namespace imported_key

}  // namespace nnx::rf
