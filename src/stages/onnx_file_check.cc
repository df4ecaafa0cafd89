// The check stage of an ONNX-file profile (onnx_file_stages.h; doc/record-format.md §11): the tool's own
// model reader instead of onnx.checker, then the manifest, whose model.onnx must be the bytes the import wrote.
#include <string>
#include <vector>

#include "artifacts/artifacts.h"
#include "artifacts/layout.h"
#include "base/model_record_vocabulary.h"
#include "onnx_file/onnx_model_file.h"
#include "record/record.h"
#include "stages/onnx_file_stages.h"
#include "stages/stages.h"

namespace nnx {
namespace {

using nlohmann::json;
namespace detail_key = rf::detail_key;

json signature(const std::vector<OnnxValueInfo>& values) {
  json out = json::array();
  for (const auto& v : values) {
    json shape = json::array();
    for (const auto& d : v.shape) shape.push_back(d.param ? json(*d.param) : d.size ? json(*d.size) : json());
    out.push_back({{"name", v.name}, {"dtype", v.dtype ? json(dtype_name(*v.dtype)) : json()},
                   {"shape", v.has_shape ? shape : json()}});
  }
  return out;
}

}  // namespace

bool run_onnx_file_check_stage(StageContext& context) {
  const auto folder = profile_folder(context.root, context.profile->name);
  const auto model_path = folder / kModelFile;
  OnnxModelFile model;
  try {
    model = read_imported_model_file(model_path, ErrorKind::unreadable);
  } catch (const std::exception& e) {
    return stage_failed(context, FailureClass::checker_error, json{{detail_key::kError, e.what()}});
  }
  try {
    context.record.artifacts.files = build_manifest(folder, model.external_locations, RecordForm::named_tensors);
  } catch (const StageFailure& f) {
    return stage_failed(context, f.failure(), f.detail());
  }
  const json& imported = context.record.stage(Stage::export_model).detail[rf::imported_key::kImported];
  for (const auto& f : context.record.artifacts.files) {
    if (f.path == kModelFile && f.sha256 != imported[rf::imported_key::kSha256]) {
      context.record.artifacts.files.clear();
      return stage_failed(context, FailureClass::checker_error,
                  json{{detail_key::kError, std::string(kModelFile) + " changed after the import wrote it (sha256 " +
                                                f.sha256 + ", not " + imported[rf::imported_key::kSha256].dump() + ")"}});
    }
  }
  json opset = json::object();
  for (const auto& [domain, version] : model.producer.opsets) opset[domain.empty() ? "ai.onnx" : domain] = version;
  const OnnxProducer& p = model.producer;
  const std::string producer = p.producer_version.empty() ? p.producer_name : p.producer_name + " " + p.producer_version;
  context.record.opset.model = opset;
  context.record.set_stage_passed(
      Stage::check, json{{detail_key::kOpset, opset},
                         {detail_key::kIrVersion, p.ir_version},
                         {detail_key::kProducer, producer},
                         {detail_key::kInputs, signature(model.graph_inputs)},
                         {detail_key::kOutputs, signature(model.graph_outputs)},
                         {"checker", "nnx-reader"}});
  return true;
}

}  // namespace nnx
