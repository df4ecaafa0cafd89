// What localisation reads of a module or imported-file record (module_localisation.h).
#include "stages/module_localisation.h"

#include "base/error.h"
#include "base/model_kind.h"
#include "base/module_record_vocabulary.h"
#include "base/model_record_vocabulary.h"
#include "base/record_vocabulary.h"
#include "profile/module_spec.h"
#include "stages/feedfwd_localisation.h"
#include "stages/module_reference.h"
#include "stages/module_tensors.h"
#include "worker/worker_protocol.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace wire = worker_protocol;

FactoryToRun factory_for(const StageContext& context) {
  const ModuleSpec* spec = context.profile ? context.profile->module_spec() : nullptr;
  if (spec == nullptr) return factory_to_run(context.record, context.record_folder, context.root);
  FactoryToRun out;
  out.factory = spec->factory;
  if (const auto file = spec->factory_file()) {
    out.file = std::filesystem::absolute(*file).lexically_normal();
    const Record::Module& recorded = *context.record.module();  // the digest the export imported
    const json digest = recorded.source_sha256.is_string()
                            ? recorded.source_sha256
                            : recorded.variant.value(rf::module_key::kSourceSha256, json());
    if (!digest.is_string()) throw ConformanceError("the record holds no source_sha256 of its factory's file");
    out.sha256 = digest.get<std::string>();
  }
  return out;
}

}  // namespace

ValuesFrom values_from(const Record& record) {
  switch (record.kind()) {
    case ModelKind::feed_forward: return ValuesFrom::pytorch;
    case ModelKind::module: return ValuesFrom::pytorch;
    case ModelKind::onnx_file: {
      const json factory = record.module()->variant.value(rf::model_key::kFactory, json());
      return factory.is_string() && !factory.get<std::string>().empty() ? ValuesFrom::pytorch
                                                                         : ValuesFrom::reference_evaluator;
    }
  }
  return ValuesFrom::nothing;
}

const RecordCase* case_to_localise(const Record& record) {
  const RecordCase* first = nullptr;
  for (const auto& c : record.input_cases) {
    if (c.expect != rf::kExpectMatch) continue;
    switch (record.kind()) {
      case ModelKind::feed_forward: break;
      case ModelKind::module:
      case ModelKind::onnx_file:
        if (!c.module() || !c.module()->outputs) continue;
        break;
    }
    if (c.outcome == rf::kOutcomeMismatch) return &c;
    if (!first && c.outcome == rf::kOutcomeMatch) first = &c;
  }
  return first;
}

void case_tensors(StageContext& context, const RecordCase& c, std::vector<Tensor>& inputs,
                  std::vector<Tensor>& references) {
  switch (context.record.kind()) {
    case ModelKind::feed_forward: return feedfwd_case_tensors(context, c, inputs, references);
    case ModelKind::module:
    case ModelKind::onnx_file: break;
  }
  // the stored graph inputs (checked) and PyTorch's recomputed outputs when execute asked, else the stored ones
  const auto& names = context.graph_input_names;
  for (const auto& in : c.module()->inputs) {
    if (std::find(names.begin(), names.end(), in.name) != names.end()) {
      inputs.push_back(stored_tensor(context.stored, in, in.file));
    }
  }
  if (context.module_references) {
    if (const auto it = context.module_references->find(c.name); it != context.module_references->end()) {
      references = it->second;
      return;
    }
  }
  for (const auto& out : *c.module()->outputs) references.push_back(stored_tensor(context.stored, out, out.file));
}

json intermediates_request(const StageContext& context, const RecordCase& c, const std::vector<Tensor>& inputs,
                           const std::string& exporter, OutgoingFrames& frames) {
  const Record& record = context.record;
  switch (record.kind()) {
    case ModelKind::feed_forward: return feedfwd_intermediates_request(context, inputs, frames);
    case ModelKind::module:
    case ModelKind::onnx_file: break;
  }
  json request = rebuild_request(record, factory_for(context), wire::kOpModuleIntermediates);
  request[wire::kExporter] = exporter;
  request[wire::kOpsetVersion] = record.opset.requested;
  json dims = json::array();
  if (record.module()->dims.is_object()) {
    for (const auto& [name, values] : record.module()->dims.items()) dims.push_back(json::array({name, values}));
  }
  request[wire::kDims] = dims;
  request[wire::kCases] = json::array({case_frames(context, c, frames)});
  return request;
}

ReproPlace repro_place(const StageContext& context, const std::filesystem::path& profile_folder) {
  switch (context.record.kind()) {
    case ModelKind::feed_forward: {  // a v1 record: its artifacts never change, the repro lives beside them
      const std::string sibling = profile_folder.filename().string() + "-repro";
      return {profile_folder.parent_path() / sibling, sibling, false};
    }
    case ModelKind::module:
    case ModelKind::onnx_file: break;
  }
  return {profile_folder / rf::kReproFolder, rf::kReproFolder, true};
}

}  // namespace nnx
