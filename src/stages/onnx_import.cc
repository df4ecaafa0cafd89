// The export stage of an ONNX-file profile: the import (onnx_file_stages.h; doc/record-format.md §11).
#include <filesystem>
#include <string>
#include <vector>

#include "artifacts/artifact_path.h"
#include "artifacts/layout.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/model_record_vocabulary.h"
#include "base/sha256.h"
#include "onnx_file/onnx_model_file.h"
#include "onnx_file/tensor_proto.h"
#include "record/record.h"
#include "stages/export_kind.h"
#include "stages/module_tensors.h"
#include "stages/onnx_file_stages.h"

namespace nnx {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace imported = rf::imported_key;

std::span<const std::byte> bytes_of(const std::string& text) { return std::as_bytes(std::span(text.data(), text.size())); }

// Copies the model and the external data it references; returns the `imported` detail so far.
json copy_model(const OnnxFileSpec& spec, const fs::path& folder) {
  const fs::path source = spec.onnx;
  const std::string bytes = read_file_bytes(source, kMaxImportedFileBytes, "the imported file limit", ErrorKind::unreadable);
  const std::string sha256 = sha256_hex(bytes);  // of the very bytes written below
  write_file_atomically(folder / kModelFile, bytes);
  json external = json::array();
  const OnnxModelFile model = read_imported_model(source, bytes_of(bytes), ErrorKind::unreadable);
  for (const auto& location : model.external_locations) {
    const std::string data = read_file_bytes(imported_external_file(source, location), kMaxImportedFileBytes,
                                             "the imported file limit", ErrorKind::unreadable);
    write_file_atomically(folder / *normalize_artifact_path(location), data);
    external.push_back({{"location", location}, {imported::kSha256, sha256_hex(data)}, {imported::kBytes, data.size()}});
  }
  const OnnxProducer& p = model.producer;
  return json{{imported::kSource, spec.onnx},
              {imported::kSha256, sha256},
              {imported::kBytes, bytes.size()},
              {imported::kExternal, external},
              {imported::kProducer, {{"producer_name", p.producer_name}, {"producer_version", p.producer_version},
                                     {"domain", p.domain}, {"model_version", p.model_version}, {"ir_version", p.ir_version}}}};
}

// Data set tensor `t` read again (data_set_folder.h), named after its graph value, and written to `relative`.
Tensor store(const DataSetTensor& t, const fs::path& folder, const std::string& relative) {
  Tensor tensor = reread_data_set_tensor(t.source, t.dtype, t.shape, t.name);
  write_stored_tensor(folder, relative, tensor);
  return tensor;
}

// Stores every data set; each case's outputs are set once all are stored (a failure part way sets none).
json store_data_sets(StageContext& context, const fs::path& folder) {
  const OnnxFileSpec& spec = *context.profile->onnx_file_spec();
  std::vector<std::vector<CaseTensor>> outputs;
  json sets = json::array();
  for (std::size_t k = 0; k < spec.data_sets.size(); ++k) {
    const OnnxDataSet& set = spec.data_sets[k];
    const RecordCase& c = context.record.input_cases[k];
    for (std::size_t j = 0; j < set.inputs.size(); ++j) store(set.inputs[j], folder, c.module()->inputs[j].file);
    std::vector<CaseTensor> stored;
    for (std::size_t j = 0; j < set.outputs.size(); ++j) {
      const Tensor t = store(set.outputs[j], folder, test_output_path(k, j));
      stored.push_back({t.name, std::string(dtype_name(t.dtype)), t.shape, test_output_path(k, j), std::nullopt, std::nullopt});
    }
    outputs.push_back(std::move(stored));
    sets.push_back(set.folder);
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) context.record.input_cases[k].module()->outputs = std::move(outputs[k]);
  return sets;
}

}  // namespace

bool run_onnx_import_stage(StageContext& context) {
  const OnnxFileSpec& spec = *context.profile->onnx_file_spec();
  const fs::path folder = profile_folder(context.root, context.profile->name);
  try {
    fs::create_directories(folder);
    json detail = copy_model(spec, folder);
    if (!spec.factory.empty()) {  // the module export's reference, oracle and weights, against the copy
      if (!export_with_worker(context)) return false;
      context.record.stage(Stage::export_model).detail[imported::kImported] = std::move(detail);
      return true;
    }
    context.reference = ReferenceKind::stored;  // the data sets' outputs are the reference
    detail[imported::kDataSets] = store_data_sets(context, folder);
    context.record.set_stage_passed(Stage::export_model, json{{imported::kImported, std::move(detail)},
                                                              {rf::detail_key::kWarnings, json::array()}});
    return true;
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    context.record.set_stage_failed(Stage::export_model, FailureClass::export_error,
                                    json{{rf::detail_key::kError, std::string("importing the ONNX file: ") + e.what()},
                                         {rf::detail_key::kLog, ""}});
    return false;
  }
}

}  // namespace nnx
