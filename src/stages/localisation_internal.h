// What the units of localisation share (localisation.h): PyTorch's values as the worker wrote them, their
// alignment with the ONNX graph's values, and the model and inputs every session of it runs. Internal to
// src/stages/localisation*.cc.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "onnx_file/graph_outline.h"
#include "runtime/runtime.h"
#include "stages/stage_context.h"
#include "stages/stages.h"
#include "stages/value_departure.h"

namespace nnx::localisation {

// ReferenceValues::computed_by, besides a matrix's "ONNX Runtime X.Y.Z, the reference cell,".
inline constexpr const char* kPyTorch = "PyTorch";
inline constexpr const char* kEvaluator = "ONNX's reference evaluator";

// One intermediate value PyTorch computed, as the worker wrote it (relative to the values folder).
struct ReferenceValue {
  std::string name;  // the FX node's name, or the submodule's path
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
  std::string file;
  std::optional<std::string> oracle_file;
  std::string module;  // module path ("" unknown)
  std::string source;  // "file:line" ("" unknown)
  std::optional<std::size_t> output_index;  // its position among the graph's outputs, when it is one
  std::uint64_t bytes() const;
};

struct ReferenceValues {
  std::filesystem::path folder;
  std::vector<ReferenceValue> values;
  std::string computed_by;  // kPyTorch, kEvaluator (module_localisation.h values_from) or a matrix's reference cell
  std::string granularity;  // "node" (dynamo), "module" (TorchScript) or "value" (the reference evaluator)
  nlohmann::json oracle_missing;
  nlohmann::json skipped;
  nlohmann::json step_seconds;  // the worker's [[step, seconds]]: the export again, the values, the oracle
  Tensor read(const ReferenceValue& value) const;                  // ConformanceError when it is not there
  std::optional<Tensor> read_oracle(const ReferenceValue& value) const;
};

// A PyTorch value and the ONNX value it became: the producing node's index in the outline.
struct AlignedValue {
  std::size_t torch = 0;  // index into ReferenceValues::values
  std::string value;      // the ONNX value's name
  std::size_t node = 0;
};

struct Alignment {
  std::vector<AlignedValue> aligned;  // in the graph's (topological) order
  nlohmann::json left_out;            // [{name, why}]
  std::size_t onnx_values = 0;        // values the graph's nodes write
  std::size_t onnx_without_counterpart = 0;
};

// Everything a session of the localisation runs.
struct Subject {
  Runtime* runtime = nullptr;
  std::span<const std::byte> model;
  const std::vector<ExternalFile>* external = nullptr;
  SessionSettings settings;
  std::vector<Tensor> inputs;       // the case's graph inputs, by name
  std::vector<Tensor> references;   // the case's reference outputs (PyTorch's)
  GraphOutline outline;
  DepartureScale scale;
  std::filesystem::path scratch;    // a folder of the profile folder, removed at the end
};

// The subject of case `c` of the context's record: the verified model (which must outlive it), its settings
// and outline, the case's inputs and references (module_localisation.h case_tensors); scale and scratch unset.
Subject subject_of(StageContext& context, const RecordCase& c, const VerifiedModel& verified);

}  // namespace nnx::localisation
