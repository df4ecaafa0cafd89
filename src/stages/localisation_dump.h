// The reference side of a matrix's parting (doc/runtime-matrix.md, "Where two releases part"): every value the
// graph's nodes write, as this process's ONNX Runtime computes it at ORT_DISABLE_ALL (each node its own
// kernel, nothing fused) on one case's inputs, written into `folder` as `values/<k>.pb` with `index.json`,
// which holds what a worker's localisation op answers (worker/LOCALISATION.md: values [{name, dtype, shape,
// file}], granularity "value", no float64 oracle), so another release's localisation reads it back as any
// reference values (localisation_values.h). The values are marked as outputs in groups of at most kDumpGroup
// values and each written as soon as its group ran.
// ConformanceError for a case the record does not hold or a graph the runtime cannot run.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "stages/localisation_internal.h"
#include "stages/stage_context.h"

namespace nnx {

inline constexpr std::size_t kDumpGroup = 32;
inline constexpr const char* kDumpIndex = "index.json";

void dump_runtime_values(StageContext& context, const std::string& case_name, const std::filesystem::path& folder);

// The record's case named `name`; ConformanceError when it holds none.
const RecordCase& case_named(const Record& record, const std::string& name);

}  // namespace nnx
