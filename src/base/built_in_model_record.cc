#include "base/built_in_model_record.h"

#include <algorithm>
#include <string>

#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "base/record_vocabulary.h"

namespace nnx {
namespace {

using json = nlohmann::json;

// The first name of the exporter option `key` (input_names, output_names), else null.
json first_name(const json& record, const char* key) {
  const json names = json_member(json_member(json_member(record, rf::kExporter), rf::exporter_key::kOptions), key);
  return names.is_array() && !names.empty() ? names.front() : json();
}

// A case's batch: the first size of its v1 shape, else null.
json batch_of(const json& shape) { return shape.is_array() && !shape.empty() ? shape.front() : json(); }

// dims.batch: the export batch, then every other batch of the cases, in case order, each once.
json batch_values(const json& brief) {
  json values = json::array();
  const auto add = [&values](const json& batch) {
    if (!batch.is_null() && std::find(values.begin(), values.end(), batch) == values.end()) values.push_back(batch);
  };
  add(json_member(json_member(json_member(brief, rf::kExporter), rf::exporter_key::kOptions), rf::exporter_key::kOptionExportBatch));
  const json cases = json_member(brief, rf::kInputCases);
  for (const auto& c : cases.is_array() ? cases : json::array()) add(batch_of(json_member(c, rf::case_key::kShape)));
  return values;
}

json tensor(const json& name, const json& dtype, json shape) {
  return {{rf::input_key::kName, name}, {rf::input_key::kDtype, dtype}, {rf::input_key::kShape, std::move(shape)}};
}

// One v1 case in §11's encoding: its shape as dims, inputs and outputs.
json encoded_case(const json& c, const json& brief) {
  if (!c.is_object()) return c;
  const json dtype = json_member(brief, rf::kDtype);
  const json shape = json_member(c, rf::case_key::kShape);
  json out = c;
  out.erase(rf::case_key::kShape);
  out[rf::module_case_key::kDims] = {{rf::kBatchDim, batch_of(shape)}};
  out[rf::module_case_key::kInputs] = json::array({tensor(first_name(brief, rf::exporter_key::kOptionInputNames),
                                                          dtype, shape)});
  json outputs;  // null: a case expected to be refused has no outputs
  if (json_member(c, rf::case_key::kExpect) == rf::kExpectMatch) {
    const json output_dim = json_member(json_member(brief, rf::kConfig), rf::config_key::kOutputDim);
    outputs = json::array({tensor(first_name(brief, rf::exporter_key::kOptionOutputNames), dtype,
                                  json::array({batch_of(shape), output_dim}))});
  }
  out[rf::module_case_key::kOutputs] = std::move(outputs);
  return out;
}

// One case of a built-in model record back in v1's form: its one input's shape.
json decoded_case(const json& c) {
  if (!c.is_object()) return c;
  const json inputs = json_member(c, rf::module_case_key::kInputs);
  json out = c;
  for (const char* key : {rf::module_case_key::kDims, rf::module_case_key::kInputs, rf::module_case_key::kOutputs}) {
    out.erase(key);
  }
  out[rf::case_key::kShape] = inputs.is_array() && !inputs.empty() ? json_member(inputs.front(), rf::input_key::kShape)
                                                                   : json();
  return out;
}

json brief_runtime(const json& runtime) {
  namespace key = rf::session_key;
  json out = runtime.is_object() ? runtime : json::object();
  out[rf::runtime_key::kProvider] = rf::runtime_key::kRequiredProvider;
  out.erase(rf::runtime_key::kProviderOptions);
  out[rf::runtime_key::kSession] = {{key::kIntraOpThreads, key::kRequiredIntraOpThreads},
                                    {key::kInterOpThreads, key::kRequiredInterOpThreads},
                                    {key::kOptimizationLevel, key::kRequiredOptimizationLevel}};
  return out;
}

}  // namespace

bool is_built_in_model_record(const json& record) {
  return json_member(record, rf::kFormat) == kModelFormat &&
         json_member(json_member(record, rf::kModel), rf::model_key::kKind) == rf::kKindBuiltIn;
}

json built_in_model_record(const json& brief) {
  json out = brief.is_object() ? brief : json::object();
  const json config = json_member(brief, rf::kConfig);
  const json dtype = json_member(brief, rf::kDtype);
  out.erase(rf::kConfig);
  out.erase(rf::kDtype);
  out[rf::kFormat] = kModelFormat;
  out[rf::kModel] = {{rf::model_key::kKind, rf::kKindBuiltIn}, {rf::model_key::kConfig, config},
                     {rf::model_key::kDtype, dtype}};
  const json width = json_member(config, rf::config_key::kInputDim);
  out[rf::kInputs] = json::array({{{rf::input_key::kName, first_name(brief, rf::exporter_key::kOptionInputNames)},
                                   {rf::input_key::kShape, json::array({rf::kBatchDim, width})},
                                   {rf::input_key::kDtype, dtype},
                                   {rf::input_key::kRange, nullptr}}});
  out[rf::kDims] = {{rf::kBatchDim, batch_values(brief)}};
  out[rf::kOutputs] = json::array({first_name(brief, rf::exporter_key::kOptionOutputNames)});
  const json cases = json_member(brief, rf::kInputCases);
  if (cases.is_array()) {
    json encoded = json::array();
    for (const auto& c : cases) encoded.push_back(encoded_case(c, brief));
    out[rf::kInputCases] = std::move(encoded);
  }
  return out;
}

json brief_view(const json& record) {
  json out = record.is_object() ? record : json::object();
  const json model = json_member(record, rf::kModel);
  for (const char* key : {rf::kModel, rf::kInputs, rf::kDims, rf::kOutputs}) out.erase(key);
  out[rf::kFormat] = kFormat;
  out[rf::kConfig] = json_member(model, rf::model_key::kConfig);
  out[rf::kDtype] = json_member(model, rf::model_key::kDtype);
  out[rf::kRuntime] = brief_runtime(json_member(record, rf::kRuntime));
  const json cases = json_member(record, rf::kInputCases);
  if (cases.is_array()) {
    json decoded = json::array();
    for (const auto& c : cases) decoded.push_back(decoded_case(c));
    out[rf::kInputCases] = std::move(decoded);
  }
  return out;
}

std::optional<ModelKind> model_kind_of_record(const json& record) {
  if (is_built_in_model_record(record)) return ModelKind::feed_forward;
  const json format = json_member(record, rf::kFormat);
  return format.is_string() ? model_kind_of_format(format.get<std::string>()) : std::nullopt;
}

}  // namespace nnx
