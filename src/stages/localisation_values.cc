// Where localisation's reference values come from (localisation_values.h).
#include "stages/localisation_values.h"

#include "stages/localisation_dump.h"

#include <regex>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/json_strict.h"
#include "onnx_file/tensor_file.h"
#include "onnx_file/tensor_proto.h"
#include "stages/module_localisation.h"
#include "stages/module_reference.h"
#include "stages/module_tensors.h"
#include "worker/worker_protocol.h"

namespace nnx::localisation {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;

// Which of PyTorch's granularities the graph's names follow: the dynamo exporter's (its nodes carry
// `pkg.torch.onnx.*` metadata), else TorchScript's scopes.
std::string exporter_of(const Record& record, const GraphOutline& outline) {
  if (record.exporter.name == "dynamo" || record.exporter.name == "torchscript") return record.exporter.name;
  for (const auto& node : outline.nodes) {
    for (const auto& [key, _] : node.metadata) {
      if (key.rfind("pkg.torch.onnx.", 0) == 0) return "dynamo";
    }
  }
  return "torchscript";
}

ReferenceValue value_of(const json& entry) {
  static const std::regex kFile(R"((values|oracle)/[0-9]+\.pb)");
  ReferenceValue v;
  v.name = entry.at(wire::kName).get<std::string>();
  const auto dtype = parse_dtype(entry.at(wire::kDType).get<std::string>());
  if (!dtype) throw ConformanceError("value " + v.name + ": a dtype the core does not know");
  v.dtype = *dtype;
  v.shape = entry.at(wire::kShape).get<std::vector<std::int64_t>>();
  v.file = entry.at(wire::kFile).get<std::string>();
  if (const json o = entry.value(wire::kOracleFile, json()); o.is_string()) v.oracle_file = o.get<std::string>();
  if (!std::regex_match(v.file, kFile) || (v.oracle_file && !std::regex_match(*v.oracle_file, kFile))) {
    throw ConformanceError("value " + v.name + ": a file outside the values folder");
  }
  if (const json m = entry.value(wire::kModulePath, json()); m.is_string()) v.module = m.get<std::string>();
  if (const json s = entry.value(wire::kSourceLine, json()); s.is_string()) v.source = s.get<std::string>();
  if (const json k = entry.value(wire::kOutputIndex, json()); k.is_number_unsigned()) v.output_index = k.get<std::size_t>();
  return v;
}

// The answer of a localisation op (worker/LOCALISATION.md): the values written in `folder`.
ReferenceValues values_of_answer(const json& answer, const std::filesystem::path& folder, std::string computed_by) {
  for (const char* problem : {wire::kImportError, wire::kException}) {
    if (const json e = answer.value(problem, json()); e.is_string()) throw ConformanceError(e.get<std::string>());
  }
  ReferenceValues out;
  out.folder = folder;
  out.computed_by = std::move(computed_by);
  out.granularity = answer.value(wire::kGranularity, std::string());
  out.oracle_missing = answer.value(wire::kOracleMissing, json());
  out.skipped = answer.value(wire::kSkipped, json::array());
  out.step_seconds = answer.value(wire::kStepSeconds, json::array());
  for (const auto& entry : answer.at(wire::kValues)) out.values.push_back(value_of(entry));
  return out;
}

// PyTorch's values of case `c` (worker/LOCALISATION.md, "module_intermediates").
ReferenceValues torch_values(StageContext& context, const RecordCase& c, const Subject& subject,
                             const std::string& exporter, const std::filesystem::path& folder) {
  OutgoingFrames frames;
  json request = intermediates_request(context, c, subject.inputs, exporter, frames);
  request[wire::kValuesTo] = std::filesystem::absolute(folder).string();
  return values_of_answer(context.exporter->reference(request, frames).body, folder, kPyTorch);
}

// ONNX's reference evaluator's values of the subject's case (worker/LOCALISATION.md, "graph_intermediates"): the
// verified model, its external files and the case's inputs written into the scratch folder for it.
ReferenceValues evaluator_values(StageContext& context, const Subject& subject, const std::filesystem::path& folder) {
  const std::filesystem::path graph = std::filesystem::absolute(subject.scratch / "graph");
  std::filesystem::create_directories(graph);
  const auto as_text = [](std::span<const std::byte> bytes) {
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  };
  write_file_atomically(graph / "model.onnx", as_text(subject.model));
  for (const auto& file : *subject.external) {
    const auto path = (graph / file.location).lexically_normal();
    if (path.lexically_relative(graph).empty() || *path.lexically_relative(graph).begin() == "..") {
      throw ConformanceError("the external data file " + file.location + " lies outside the model's folder");
    }
    std::filesystem::create_directories(path.parent_path());
    write_file_atomically(path, as_text(file.bytes));
  }
  json inputs = json::array();
  for (std::size_t j = 0; j < subject.inputs.size(); ++j) {
    const auto path = graph / ("input_" + std::to_string(j) + ".pb");
    write_file_atomically(path, encode_tensor_proto(subject.inputs[j]));
    inputs.push_back(path.string());
  }
  const json request{{wire::kOp, wire::kOpGraphIntermediates}, {wire::kModel, (graph / "model.onnx").string()},
                     {wire::kInputs, inputs}, {wire::kValuesTo, std::filesystem::absolute(folder).string()}};
  return values_of_answer(context.exporter->reference(request, OutgoingFrames{}).body, folder, kEvaluator);
}

}  // namespace

ReferenceValues reference_values(StageContext& context, const RecordCase& c, const Subject& subject,
                                 const std::filesystem::path& folder) {
  if (context.other_runtime_values) {  // a matrix's parting: the index another release's dump wrote
    const std::filesystem::path& dumped = *context.other_runtime_values;
    return values_of_answer(read_strict_json_file(dumped / kDumpIndex), dumped, context.other_runtime_label);
  }
  if (!context.exporter) throw ConformanceError("no worker is running to compute the reference values");
  switch (values_from(context.record)) {
    case ValuesFrom::pytorch:
      return torch_values(context, c, subject, exporter_of(context.record, subject.outline), folder);
    case ValuesFrom::reference_evaluator: return evaluator_values(context, subject, folder);
    case ValuesFrom::nothing: break;
  }
  throw ConformanceError("nothing computes this record's reference values");
}

std::uint64_t ReferenceValue::bytes() const {
  std::uint64_t n = dtype_size(dtype);
  for (auto d : shape) n *= static_cast<std::uint64_t>(std::max<std::int64_t>(d, 0));
  return n;
}

Tensor ReferenceValues::read(const ReferenceValue& value) const {
  return read_tensor_file(folder / value.file, value.file, module_limits::kMaxTensorBytes);
}

std::optional<Tensor> ReferenceValues::read_oracle(const ReferenceValue& value) const {
  if (!value.oracle_file) return std::nullopt;
  ReferenceValue twin = value;
  twin.file = *value.oracle_file;
  return read(twin);
}

}  // namespace nnx::localisation
