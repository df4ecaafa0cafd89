// What localisation reads of a module or imported-file record (module_localisation.h).
#include "stages/module_localisation.h"

#include "base/error.h"
#include "base/model_kind.h"
#include "base/module_record_vocabulary.h"
#include "base/model_record_vocabulary.h"
#include "profile/module_spec.h"
#include "stages/module_reference.h"
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
    case ModelKind::feed_forward: return ValuesFrom::nothing;
    case ModelKind::module: return ValuesFrom::pytorch;
    case ModelKind::onnx_file: {
      const json factory = record.module()->variant.value(rf::model_key::kFactory, json());
      return factory.is_string() && !factory.get<std::string>().empty() ? ValuesFrom::pytorch
                                                                         : ValuesFrom::reference_evaluator;
    }
  }
  return ValuesFrom::nothing;
}

json intermediates_request(const StageContext& context, const std::string& exporter) {
  const Record& record = context.record;
  json request = rebuild_request(record, factory_for(context), wire::kOpModuleIntermediates);
  request[wire::kExporter] = exporter;
  request[wire::kOpsetVersion] = record.opset.requested;
  json dims = json::array();
  if (record.module()->dims.is_object()) {
    for (const auto& [name, values] : record.module()->dims.items()) dims.push_back(json::array({name, values}));
  }
  request[wire::kDims] = dims;
  return request;
}

}  // namespace nnx
