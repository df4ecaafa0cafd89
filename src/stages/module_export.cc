// A module's side of the export stage (export_kind.h; doc/record-format.md §10, §11), its hooks on the one
// path: the worker, in a child forked for this profile alone, imports the factory, builds the module, computes
// PyTorch's reference (and the float64 oracle) on the drawn case inputs, gives the module gradients and a
// mixed mode, snapshots it, exports and compares (worker/PROTOCOL.md, "module_export"; for an ONNX file
// checked against its factory, `imported`: the copy is not exported again). Read first from the answer: the
// child's step times, the module's identity, inputs the forward cannot take by name (a usage error, exit 2,
// before the forward runs) and a factory whose module does not import (the dependencies stage's
// missing-dependency; export not run). Once model.onnx is written: the factory's file copied into the profile
// folder (artifacts/factory_copy.h), the case tensors stored beside it (stages/module_tensors.h) and, once
// every tensor is stored, each case's outputs (a store that fails part way sets none: tool-error), with the
// export detail (dims_in_graph, the graph's names, weights, where not every input went by position `binding`).
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "artifacts/factory_copy.h"
#include "artifacts/layout.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/nearest_name.h"
#include "onnx_file/frozen_sizes.h"
#include "profile/onnx_file_spec.h"
#include "record/record.h"
#include "stages/export_kind.h"
#include "stages/module_tensors.h"
#include "worker/tensor_wire.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;
namespace detail_key = rf::detail_key;

// A case's inputs in the request: the stored tensor files they were written to (worker/TENSORS.md, "Case tensors as
// files").
json input_files_json(const RecordCase& c) {
  json out = json::array();
  for (const CaseTensor& in : c.module()->inputs) out.push_back({{wire::kName, in.name}, {wire::kFile, in.file}});
  return out;
}

// Draws (or reads again) each case's inputs and writes them where the record stores them, one case at a time,
// before the request: the worker's child reads them from there (so no process holds every case's tensors).
void write_case_inputs(const StageContext& context) {
  const auto folder = profile_folder(context.root, context.profile->name);
  const ModuleSpec& spec = *context.profile->module_spec();
  const auto& cases = context.profile->input_cases();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::vector<Tensor> inputs = draw_case_inputs(spec, *cases[i].module());
    const RecordCase& c = context.record.input_cases[i];
    for (std::size_t j = 0; j < inputs.size(); ++j) write_stored_tensor(folder, c.module()->inputs[j].file, inputs[j]);
  }
}

json export_request(const StageContext& context) {
  const Profile& profile = *context.profile;
  const ModuleSpec& spec = *profile.module_spec();
  json specs = json::array();
  for (const auto& input : spec.inputs) specs.push_back(input.to_json());
  json dims = json::array();
  for (const auto& [name, values] : spec.dims) dims.push_back(json::array({name, values}));
  json cases = json::array();
  std::size_t match = 0;
  for (const RecordCase& c : context.record.input_cases) {
    if (c.expect != rf::kExpectMatch) continue;
    cases.push_back({{wire::kName, c.name}, {wire::kInputs, input_files_json(c)},
                     {wire::kOutputsTo, test_data_set_folder(match)}, {wire::kOracleTo, oracle_data_set_folder(match)}});
    ++match;
  }
  const auto file = spec.factory_file();
  json request{{wire::kOp, wire::kOpModuleExport},
              {wire::kExporter, profile.exporter},
              {wire::kOpsetVersion, profile.opset_version},
              {wire::kFactory, spec.factory},
              {wire::kFactoryPath, file ? json(std::filesystem::absolute(*file).string()) : json()},
              {wire::kInputs, specs},
              {wire::kDims, dims},
              {wire::kOutputNames, spec.outputs ? json(*spec.outputs) : json()},
              {wire::kExample, input_files_json(context.record.input_cases.front())},
              {wire::kCases, cases},
              {wire::kOutputDir, std::filesystem::absolute(profile_folder(context.root, profile.name)).string()},
              {wire::kModelFile, kModelFile}};
  if (spec.precision != Precision::float32) request[wire::kPrecision] = std::string(precision_name(spec.precision));
  return request;
}

// A stored output the answer names: {name, dtype, shape, file} with the file the layout gives it (`expected`);
// WorkerError (malformed) otherwise.
CaseTensor stored_output(const json& entry, const std::string& expected, const std::string& what) {
  const auto refuse = [&](const std::string& why) {
    return WorkerError(WorkerError::Kind::malformed, what + ": " + why);
  };
  if (!entry.is_object() || !entry.value(wire::kName, json()).is_string()) throw refuse("not a stored tensor {name, dtype, shape, file}");
  const json dtype = entry.value(wire::kDType, json());
  if (!dtype.is_string() || !parse_dtype(dtype.get<std::string>())) throw refuse("no dtype the core knows");
  const json shape = entry.value(wire::kShape, json());
  if (!shape.is_array() || shape.size() > module_limits::kMaxRank + 1) throw refuse("no shape");
  CaseTensor out{entry[wire::kName].get<std::string>(), dtype.get<std::string>(), {}, expected, std::nullopt, std::nullopt};
  for (const auto& n : shape) {
    if (!n.is_number_unsigned()) throw refuse("a size that is not a non-negative integer");
    out.shape.push_back(n.get<std::int64_t>());
  }
  if (entry.value(wire::kFile, json()) != expected) throw refuse("not written to " + expected);
  return out;
}

// Each match case's stored outputs, in case order, from the answer's references with the oracle files beside
// them (an oracle entry may be null: an integer output whose oracle cannot tell, no file); the child wrote the
// files, one case at a time, in the layout's places.
std::vector<std::vector<CaseTensor>> case_outputs(const json& answer, const Record& record) {
  const json& references = answer.at(wire::kReferences);
  const json oracle = answer.value(wire::kOracle, json());
  std::vector<std::vector<CaseTensor>> out;
  std::size_t match = 0;
  for (const auto& c : record.input_cases) {
    if (c.expect != rf::kExpectMatch) continue;
    if (match >= references.size() || references[match].at(wire::kName) != c.name) {
      throw WorkerError(WorkerError::Kind::malformed, "references: no outputs for case " + c.name);
    }
    const json& outputs = references[match].at(wire::kOutputs);
    const json* oracles = oracle.is_array() && match < oracle.size() ? &oracle[match].at(wire::kOutputs) : nullptr;
    std::vector<CaseTensor> tensors;
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      tensors.push_back(stored_output(outputs[j], test_output_path(match, j), "reference of " + c.name));
      if (oracles == nullptr || j >= oracles->size() || (*oracles)[j].is_null()) continue;
      tensors.back().oracle_file =
          stored_output((*oracles)[j], oracle_output_path(match, j), "oracle of " + c.name).file;
    }
    out.push_back(std::move(tensors));
    ++match;
  }
  return out;
}

void record_identity(Record& record, const json& answer) {
  const json identity = answer.value(wire::kModuleIdentity, json());
  if (!identity.is_object()) return;
  record.module()->class_name = identity.value("class", json());
  record.module()->source_sha256 = identity.value("source_sha256", json());
  record.module()->state_sha256 = identity.value("state_sha256", json());
}

// dims_in_graph as the graph does it (doc/record-format.md §10): the worker's reading of the inputs'
// declaration, each dim it says is `dynamic` whose export size a shape-computing node holds as a constant
// (onnx_file/frozen_sizes.h) becoming {"graph": "frozen", "node", "op", "size"}. A model file that cannot be
// read or parsed keeps the worker's reading (the check stage names what is wrong with it).
json dims_in_graph(const StageContext& context, const json& answer) {
  json dims = answer.value(wire::kDimsInGraph, json());
  if (!dims.is_object()) return dims;
  std::vector<std::int64_t> sizes;
  for (const auto& [name, values] : context.profile->module_spec()->dims) sizes.push_back(values.front());
  std::map<std::int64_t, FrozenSize> frozen;
  try {
    const auto model = profile_folder(context.root, context.profile->name) / kModelFile;
    const std::string bytes =
        read_file_bytes(model, kMaxImportedFileBytes, "the imported file limit", ErrorKind::unreadable);
    frozen = find_frozen_sizes(std::as_bytes(std::span(bytes)), sizes);
  } catch (const Error&) {
    return dims;  // a file the check stage will name: the declaration's reading stands
  }
  for (const auto& [name, values] : context.profile->module_spec()->dims) {
    const auto found = frozen.find(values.front());
    if (!dims.contains(name) || dims[name] != rf::graph_dims_key::kDynamic || found == frozen.end()) continue;
    namespace key = rf::graph_dims_key;
    dims[name] = json{{key::kGraph, key::kFrozen}, {key::kNode, found->second.node}, {key::kOp, found->second.op_type},
                      {key::kSize, values.front()}};
  }
  return dims;
}

json export_detail(const StageContext& context, const json& answer) {
  json detail{{detail_key::kWarnings, answer.value(wire::kWarnings, json::array())}};
  for (const char* key : {wire::kOutputNames, wire::kDimsInGraph, wire::kGraph, wire::kWeights, wire::kOracleMissing}) {
    detail[key] = answer.value(key, json());
  }
  detail[wire::kDimsInGraph] = dims_in_graph(context, answer);
  // Which parameter each input went to, only where not every input went by position in its own order.
  if (const json binding = answer.value(wire::kBinding, json()); binding.is_array()) detail[wire::kBinding] = binding;
  // The state proof without gradients, only where backward could not run through the module.
  if (const json proof = answer.value(wire::kStateProof, json()); proof.is_object()) detail[wire::kStateProof] = proof;
  // A precision other than float32: its name and what converted the module or its graph.
  if (const json precision = answer.value(wire::kPrecision, json()); precision.is_object()) detail[wire::kPrecision] = precision;
  return detail;
}

// Inputs the forward cannot take by name (worker/nnx_worker_bind.py), seen before anything ran the forward:
// the profile's usage error (exit 2), naming the signature and the nearest parameter of each unknown name.
void throw_if_unbound(const Profile& profile, const json& answer) {
  const json error = answer.value(wire::kBindError, json());
  if (!error.is_object() || !error.value("problem", json()).is_string()) return;
  std::string message = "profile " + profile.name + ": " + error["problem"].get<std::string>();
  std::vector<std::string> parameters;
  for (const auto& p : error.value("parameters", json::array())) {
    if (p.is_string()) parameters.push_back(p.get<std::string>());
  }
  for (const auto& name : error.value("unknown", json::array())) {
    if (name.is_string()) message += did_you_mean(name.get<std::string>(), parameters);
  }
  throw UsageError(message + " (name each input after the forward parameter it is given to; doc/profile-files.md, "
                             "\"Inputs bound by name\")");
}

// The child's step times (worker/PROTOCOL.md, "module_export": step_seconds), for run --timings.
void keep_step_seconds(StageContext& context, const json& answer) {
  const auto steps = answer.find(wire::kStepSeconds);
  if (steps == answer.end() || !steps->is_array()) return;
  for (const auto& step : *steps) {
    if (step.is_array() && step.size() == 2 && step[0].is_string() && step[1].is_number()) {
      context.times.export_step_seconds.emplace_back(step[0].get<std::string>(), step[1].get<double>());
    }
  }
}

class ModuleExport final : public ExportKind {
 public:
  // `imported`: an ONNX file checked against its factory, already copied: nothing is exported (§11).
  ModuleExport(StageContext& context, bool imported) : context_(context), imported_(imported) {}

  // The stored tensors the export wrote are the record's only when it passed: otherwise none is left behind
  // (a failed export's record names none), and after it passed none the record does not name (an oracle the
  // child gave up part way).
  ~ModuleExport() override {
    std::optional<std::reference_wrapper<const Record>> named;
    if (kept_) named = std::cref(context_.record);
    discard_unnamed_stored_tensors(profile_folder(context_.root, context_.profile->name), named);
  }

  json request(OutgoingFrames&) override {
    write_case_inputs(context_);
    json request = export_request(context_);
    if (imported_) {
      request[wire::kImported] = true;
      request[wire::kBind] = context_.profile->onnx_file_spec()->parameters();
    }
    return request;
  }

  std::optional<bool> read_first(const json& answer) override {
    Record& record = context_.record;
    keep_step_seconds(context_, answer);
    record_identity(record, answer);
    throw_if_unbound(*context_.profile, answer);
    if (const json error = answer.value(wire::kStoreError, json()); error.is_string()) {  // the tool's own step
      throw ConformanceError("storing the case tensors: " + error.get<std::string>());
    }
    if (const json error = answer.value(wire::kImportError, json()); error.is_string()) {
      record.set_stage_failed(Stage::dependencies, FailureClass::missing_dependency,
                              json{{detail_key::kProblems, json::array({"the module " + record.module()->factory +
                                                                        " does not import: " + error.get<std::string>()})}});
      return false;
    }
    return std::nullopt;
  }

  json passed(const json& answer, AnswerFrames&) override {
    const auto stored = std::chrono::steady_clock::now();
    if (const auto file = context_.profile->module_spec()->factory_file()) {  // the record travels with its factory
      const json& source = context_.record.module()->source_sha256;
      copy_factory(std::filesystem::absolute(*file), profile_folder(context_.root, context_.profile->name),
                   source.is_string() ? std::optional<std::string>(source.get<std::string>()) : std::nullopt);
    }
    auto outputs = case_outputs(answer, context_.record);
    json detail = export_detail(context_, answer);
    auto next = outputs.begin();  // all at once, last: a failure before sets none
    for (RecordCase& c : context_.record.input_cases) {
      if (c.expect == rf::kExpectMatch) c.module()->outputs = std::move(*next++);
    }
    kept_ = true;
    context_.times.export_step_seconds.emplace_back(
        "store", std::chrono::duration<double>(std::chrono::steady_clock::now() - stored).count());
    return detail;
  }

  FailureClass own_step_failure() const override { return FailureClass::tool_error; }

 private:
  StageContext& context_;
  const bool imported_;
  bool kept_ = false;  // the stage passed: the record names its stored tensors
};

}  // namespace

std::unique_ptr<ExportKind> module_export(StageContext& context) { return std::make_unique<ModuleExport>(context, false); }

std::unique_ptr<ExportKind> imported_file_export(StageContext& context) {
  return std::make_unique<ModuleExport>(context, true);
}

}  // namespace nnx
