// The vocabulary of a module record, nnx.module-conformance/1 (doc/record-format.md §10): the names it
// adds to the keys of record_vocabulary.h that it shares with v1 records (format, profile, status, ...):
// its 19 top-level keys in order, the module identity, an input spec and a module case's own keys. Names
// only, at the bottom layer, so every layer that reads or writes a module record spells them from here;
// whoever needs them includes this header (record_vocabulary.h does not).
#pragma once

#include <array>

#include "base/record_vocabulary.h"  // the keys a module record shares with v1: kFormat, kProfile, ...

namespace nnx::rf {

inline constexpr const char* kModule = "module";
inline constexpr const char* kInputs = "inputs";
inline constexpr const char* kDims = "dims";
inline constexpr const char* kOutputs = "outputs";

inline constexpr std::array<const char*, 19> kModuleRecordKeys = {
    kFormat,   kProfile,  kStatus,   kFailure,   kLevel,   kSource,     kModule,     kInputs,      kDims,  kOutputs,
    kExporter, kOpset,    kArtifacts, kVersions, kRuntime, kInputCases, kTolerances, kModelState, kStages};

namespace module_key {  // module
inline constexpr const char* kFactory = "factory";
inline constexpr const char* kClass = "class";
inline constexpr const char* kSourceSha256 = "source_sha256";
inline constexpr const char* kStateSha256 = "state_sha256";
inline constexpr std::array<const char*, 4> kKeys = {kFactory, kClass, kSourceSha256, kStateSha256};
}  // namespace module_key

namespace graph_dims_key {  // stages.export.detail.dims_in_graph (§10): {dim: "dynamic" | "static" | frozen}
inline constexpr const char* kDimsInGraph = "dims_in_graph";
inline constexpr const char* kDynamic = "dynamic";
inline constexpr const char* kStatic = "static";
// A dim declared dynamic that a node of the graph fixes: {"graph": "frozen", "node", "op", "size"}.
inline constexpr const char* kGraph = "graph";
inline constexpr const char* kFrozen = "frozen";
inline constexpr const char* kNode = "node";
inline constexpr const char* kOp = "op";
inline constexpr const char* kSize = "size";
}  // namespace graph_dims_key

namespace input_key {  // inputs[i]
inline constexpr const char* kName = "name";
inline constexpr const char* kShape = "shape";
inline constexpr const char* kDtype = "dtype";
inline constexpr const char* kRange = "range";
inline constexpr std::array<const char*, 4> kKeys = {kName, kShape, kDtype, kRange};
inline constexpr const char* kHides = "hides";  // the outputs whose positions this mask input's zeros hide
inline constexpr std::array<const char*, 5> kKeysWithHides = {kName, kShape, kDtype, kRange, kHides};
}  // namespace input_key

namespace dont_care_key {  // a module record's stages.parity.detail.dont_care, only when an input hides outputs (§10)
inline constexpr const char* kDontCare = "dont_care";  // [{case, output, input, excluded}]
inline constexpr const char* kCase = "case";
inline constexpr const char* kOutput = "output";
inline constexpr const char* kInput = "input";
inline constexpr const char* kExcluded = "excluded";
}  // namespace dont_care_key

namespace module_case_key {  // a module record's input_cases[i]: v1's keys with shape replaced by these
inline constexpr const char* kDims = "dims";
inline constexpr const char* kInputs = "inputs";    // [{name, dtype, shape, file[, given]}]
inline constexpr const char* kOutputs = "outputs";  // null, or [{name, dtype, shape, file, oracle_file}]
inline constexpr const char* kFile = "file";
inline constexpr const char* kOracleFile = "oracle_file";
inline constexpr const char* kGiven = "given";  // an input a data set gave: "test_data_set_<N>/input_<j>.pb"
}  // namespace module_case_key

namespace exact_key {  // a module record's stages.parity.detail, only where the situation arises (§10)
inline constexpr const char* kExactOutputs = "exact_outputs";  // [{case, output, dtype, elements, differing, near_ties}]
inline constexpr const char* kDtypeDiffers = "dtype_differs";  // [{case, output, runtime, reference}]
inline constexpr const char* kCase = "case";
inline constexpr const char* kOutput = "output";
inline constexpr const char* kDtype = "dtype";
inline constexpr const char* kElements = "elements";
inline constexpr const char* kDiffering = "differing";
inline constexpr const char* kNearTies = "near_ties";  // null: the oracle cannot tell
inline constexpr const char* kRuntime = "runtime";
inline constexpr const char* kReference = "reference";
inline constexpr std::array<const char*, 6> kExactEntryKeys = {kCase, kOutput, kDtype, kElements, kDiffering, kNearTies};
inline constexpr std::array<const char*, 4> kDtypeEntryKeys = {kCase, kOutput, kRuntime, kReference};
}  // namespace exact_key

namespace dtype_tolerance_key {  // a module record's stages.parity.detail.dtype_tolerances, only for half outputs
inline constexpr const char* kDtypeTolerances = "dtype_tolerances";  // [{output, dtype, rtol, atol}]
inline constexpr const char* kOutput = "output";
inline constexpr const char* kDtype = "dtype";
inline constexpr const char* kRtol = "rtol";
inline constexpr const char* kAtol = "atol";
inline constexpr std::array<const char*, 4> kEntryKeys = {kOutput, kDtype, kRtol, kAtol};
}  // namespace dtype_tolerance_key

namespace vacuous_key {  // a module record's stages.parity.detail.vacuous_tolerance, only when it arises (§10)
inline constexpr const char* kVacuousTolerance = "vacuous_tolerance";  // [{output, max_abs_reference, allowed}]
inline constexpr const char* kOutput = "output";
inline constexpr const char* kMaxAbsReference = "max_abs_reference";
inline constexpr const char* kAllowed = "allowed";
inline constexpr std::array<const char*, 3> kEntryKeys = {kOutput, kMaxAbsReference, kAllowed};
}  // namespace vacuous_key

namespace precision_key {  // a module record's precision other than float32 (§10, "Precision"; base/precision.h)
inline constexpr const char* kPrecision = "precision";  // tolerances.precision and stages.parity.detail.precision
inline constexpr const char* kName = "name";
inline constexpr const char* kRtol = "rtol";
inline constexpr const char* kAtol = "atol";
inline constexpr const char* kWhy = "why";
inline constexpr std::array<const char*, 4> kToleranceKeys = {kName, kRtol, kAtol, kWhy};  // tolerances.precision
inline constexpr const char* kFloat32Tolerance = "float32_tolerance";  // {rtol, atol}: the record's own
inline constexpr const char* kWithinFloat32 = "cases_within_float32";  // the compared cases it would pass
inline constexpr const char* kBeyondFloat32 = "cases_beyond_float32";  // the compared cases it would fail
inline constexpr std::array<const char*, 4> kDetailKeys = {kName, kFloat32Tolerance, kWithinFloat32, kBeyondFloat32};
}  // namespace precision_key

}  // namespace nnx::rf
