// Record::to_json and Record::from_json (record.h): the typed record as the 17 keys of doc/record-format.md §5,
// or a module record (`module` set) as the 19 keys of §10, or the built-in net's in §11's encoding (kind
// "built-in": base/built_in_model_record.h). from_json reads only records validate_record
// accepts, so every read below finds the key and type the rules guarantee.
#include <utility>

#include "base/built_in_model_record.h"
#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "base/overloaded.h"
#include "base/module_record_vocabulary.h"
#include "record/record.h"
#include "record/validate_record.h"

namespace nnx {
namespace {

json optional_string(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

json optional_failure(const std::optional<FailureClass>& f) {
  return f ? json(std::string(failure_name(*f))) : json(nullptr);
}

json optional_number(const std::optional<JsonNumber>& n) { return n ? n->to_json() : json(nullptr); }

std::optional<std::string> read_optional_string(const json& v) {
  return v.is_null() ? std::nullopt : std::optional<std::string>(v.get<std::string>());
}

std::optional<FailureClass> read_failure(const json& v) {
  return v.is_null() ? std::nullopt : parse_failure(v.get<std::string>());
}

std::optional<JsonNumber> read_number(const json& v) {
  return v.is_null() ? std::nullopt : std::optional<JsonNumber>(JsonNumber::from_json(v));
}

CaseTensor read_tensor(const json& t, bool output) {
  namespace key = rf::module_case_key;
  CaseTensor out{t[rf::input_key::kName].get<std::string>(), t[rf::input_key::kDtype].get<std::string>(),
                 t[rf::input_key::kShape].get<std::vector<std::int64_t>>(), t[key::kFile].get<std::string>(),
                 std::nullopt, std::nullopt};
  if (output) out.oracle_file = read_optional_string(t[key::kOracleFile]);
  if (!output && t.contains(key::kGiven)) out.given = t[key::kGiven].get<std::string>();
  return out;
}

// A module record's case fields (§10): dims in the order the record holds them, inputs, outputs.
ModuleCaseFields read_module_case(const json& c) {
  namespace key = rf::module_case_key;
  ModuleCaseFields out;
  for (auto it = c[key::kDims].begin(); it != c[key::kDims].end(); ++it) {
    out.dims.emplace_back(it.key(), it->get<std::int64_t>());
  }
  for (const auto& t : c[key::kInputs]) out.inputs.push_back(read_tensor(t, false));
  if (!c[key::kOutputs].is_null()) {
    out.outputs.emplace();
    for (const auto& t : c[key::kOutputs]) out.outputs->push_back(read_tensor(t, true));
  }
  return out;
}

// A named-tensors case's dims, inputs and outputs into its JSON `out` (§10).
void write_module_case(const ModuleCaseFields& fields, json& out) {
  namespace mkey = rf::module_case_key;
  json dims = json::object();
  for (const auto& [dim, value] : fields.dims) dims[dim] = value;
  json inputs = json::array();
  for (const auto& t : fields.inputs) inputs.push_back(t.to_json(false));
  json outputs = nullptr;
  if (fields.outputs) {
    outputs = json::array();
    for (const auto& t : *fields.outputs) outputs.push_back(t.to_json(true));
  }
  out[mkey::kDims] = std::move(dims);
  out[mkey::kInputs] = std::move(inputs);
  out[mkey::kOutputs] = std::move(outputs);
}

RecordCase read_case(const json& c, RecordForm form) {
  namespace key = rf::case_key;
  RecordCase out;
  out.name = c[key::kName].get<std::string>();
  switch (form) {
    case RecordForm::named_tensors: out.inputs = read_module_case(c); break;  // its stored tensors (§10)
    case RecordForm::brief: out.inputs = c[key::kShape].get<CaseShape>(); break;
  }
  out.seed = c[key::kSeed].get<std::uint64_t>();
  out.expect = c[key::kExpect].get<std::string>();
  out.outcome = read_optional_string(c[key::kOutcome]);
  out.passed = c[key::kPassed].get<bool>();
  out.failure = read_failure(c[key::kFailure]);
  out.max_abs_error = read_number(c[key::kMaxAbsError]);
  out.max_rel_error = read_number(c[key::kMaxRelError]);
  out.detail = read_optional_string(c[key::kDetail]);
  return out;
}

ArtifactFile read_file(const json& f) {
  namespace key = rf::file_key;
  return {f[key::kPath].get<std::string>(), f[key::kRole].get<std::string>(), f[key::kBytes].get<std::uint64_t>(),
          f[key::kSha256].get<std::string>()};
}

StageEntry read_stage(const json& s) {
  namespace key = rf::stage_key;
  return {*parse_stage_status(s[key::kStatus].get<std::string>()), read_failure(s[key::kFailure]), s[key::kDetail]};
}

Record::Artifacts read_artifacts(const json& a) {
  namespace key = rf::artifacts_key;
  Record::Artifacts out{a[key::kDirectory].get<std::string>(), a[key::kModel].get<std::string>(), {}};
  for (const auto& f : a[key::kFiles]) out.files.push_back(read_file(f));
  return out;
}

Record::Runtime read_runtime(const json& r) {
  namespace key = rf::runtime_key;
  namespace session = rf::session_key;
  const json& s = r[key::kSession];
  SessionOptions options{s[session::kIntraOpThreads].get<std::int64_t>(), s[session::kInterOpThreads].get<std::int64_t>(),
                         s[session::kOptimizationLevel].get<std::string>(), {}};
  if (s.contains(session::kConfig)) options.config = s[session::kConfig].get<std::map<std::string, std::string>>();
  Record::Runtime out{r[key::kName].get<std::string>(), r[key::kVersion], r[key::kProvider].get<std::string>(),
                      std::move(options), {}};
  if (r.contains(key::kProviderOptions)) {
    out.provider_options = r[key::kProviderOptions].get<std::map<std::string, std::string>>();
  }
  return out;
}

Record::Module read_module(const json& j) {
  namespace key = rf::module_key;
  if (j.contains(rf::kModel)) {  // §11: the kind's variant, the module identity inside it
    const json& m = j[rf::kModel];
    const json& factory = m[rf::model_key::kFactory];
    return {factory.is_string() ? factory.get<std::string>() : "", m[key::kClass], m[key::kSourceSha256],
            m[key::kStateSha256], j[rf::kInputs], j[rf::kDims], j[rf::kOutputs], m};
  }
  const json& m = j[rf::kModule];
  return {m[key::kFactory].get<std::string>(), m[key::kClass], m[key::kSourceSha256], m[key::kStateSha256],
          j[rf::kInputs], j[rf::kDims], j[rf::kOutputs], nullptr};
}

// The members of a valid record `j` (validated by the caller).
Record read_record(const json& j) {
  Record r;
  r.format = j[rf::kFormat].get<std::string>();
  const RecordForm form = model_kind_facts(model_kind_of_format(r.format).value_or(ModelKind::feed_forward)).form;
  r.profile = j[rf::kProfile].get<std::string>();
  r.status = *parse_record_status(j[rf::kStatus].get<std::string>());
  r.failure = read_failure(j[rf::kFailure]);
  r.level = *parse_level(j[rf::kLevel].get<std::string>());
  r.source = j[rf::kSource];
  switch (form) {
    case RecordForm::named_tensors: r.own = read_module(j); break;
    case RecordForm::brief: r.own = Record::Brief{j[rf::kConfig], j[rf::kDtype].get<std::string>()}; break;
  }
  const json& exporter = j[rf::kExporter];
  r.exporter = {exporter[rf::exporter_key::kName].get<std::string>(), exporter[rf::exporter_key::kOptions]};
  const json& opset = j[rf::kOpset];
  r.opset = {opset[rf::opset_key::kRequested].get<std::int64_t>(), opset[rf::opset_key::kModel]};
  r.artifacts = read_artifacts(j[rf::kArtifacts]);
  r.versions = j[rf::kVersions];
  r.runtime = read_runtime(j[rf::kRuntime]);
  for (const auto& c : j[rf::kInputCases]) r.input_cases.push_back(read_case(c, form));
  const json& tolerances = j[rf::kTolerances];
  r.tolerances = {JsonNumber::from_json(tolerances[rf::tolerance_key::kRtol]),
                  JsonNumber::from_json(tolerances[rf::tolerance_key::kAtol]), std::nullopt};
  if (const auto it = tolerances.find(rf::precision_key::kPrecision); it != tolerances.end()) {
    r.tolerances.precision = parse_precision((*it)[rf::precision_key::kName].get<std::string>());
  }
  r.model_state = j[rf::kModelState];
  for (Stage s : kStages) r.stage(s) = read_stage(j[rf::kStages][std::string(stage_name(s))]);
  return r;
}

}  // namespace

JsonNumber JsonNumber::from_json(const json& number) {
  double ignored = 0.0;
  if (!json_number(number, ignored)) throw ConformanceError("not a JSON number: " + json_type_name(number));
  JsonNumber out;
  out.number_ = number;
  return out;
}

double JsonNumber::value() const {
  double d = 0.0;
  json_number(number_, d);
  return d;
}

json SessionOptions::to_json() const {
  namespace key = rf::session_key;
  json out{{key::kIntraOpThreads, intra_op_num_threads},
           {key::kInterOpThreads, inter_op_num_threads},
           {key::kOptimizationLevel, graph_optimization_level}};
  if (!config.empty()) out[key::kConfig] = config;
  return out;
}

json CaseTensor::to_json(bool output) const {
  namespace key = rf::module_case_key;
  json out{{rf::input_key::kName, name}, {rf::input_key::kDtype, dtype}, {rf::input_key::kShape, shape}, {key::kFile, file}};
  if (output) out[key::kOracleFile] = optional_string(oracle_file);
  if (!output && given) out[key::kGiven] = *given;
  return out;
}

json RecordCase::to_json() const {
  namespace key = rf::case_key;
  json out{{key::kName, name},
           {key::kSeed, seed},
           {key::kExpect, expect},
           {key::kOutcome, optional_string(outcome)},
           {key::kPassed, passed},
           {key::kFailure, optional_failure(failure)},
           {key::kMaxAbsError, optional_number(max_abs_error)},
           {key::kMaxRelError, optional_number(max_rel_error)},
           {key::kDetail, optional_string(detail)}};
  std::visit(Overloaded{[&](const CaseShape& shape) { out[key::kShape] = shape; },  // v1 (§5)
                        [&](const ModuleCaseFields& fields) { write_module_case(fields, out); }},  // §10
             inputs);
  return out;
}

json StageEntry::to_json() const {
  namespace key = rf::stage_key;
  return json{{key::kStatus, std::string(stage_status_name(status))},
              {key::kFailure, optional_failure(failure)},
              {key::kDetail, detail}};
}

namespace {

// A named-tensors record's own keys into its JSON `out`: a module record's `module` (§10), or the successor
// format's `model` variant with the identity the export found (§11); then its inputs, dims and outputs.
void write_module_keys(const Record::Module& module, json& out) {
  namespace key = rf::module_key;
  if (!module.variant.is_null()) {
    json variant = module.variant;
    variant[key::kClass] = module.class_name;
    variant[key::kSourceSha256] = module.source_sha256;
    variant[key::kStateSha256] = module.state_sha256;
    out[rf::kModel] = std::move(variant);
  } else {
    out[rf::kModule] = {{key::kFactory, module.factory}, {key::kClass, module.class_name},
                        {key::kSourceSha256, module.source_sha256}, {key::kStateSha256, module.state_sha256}};
  }
  out[rf::kInputs] = module.inputs;
  out[rf::kDims] = module.dims;
  out[rf::kOutputs] = module.outputs;
}

}  // namespace

json Record::to_json() const {
  json files = json::array();
  for (const auto& f : artifacts.files) files.push_back(f.to_json());
  json cases = json::array();
  for (const auto& c : input_cases) cases.push_back(c.to_json());
  json stage_entries = json::object();
  for (Stage s : kStages) stage_entries[std::string(stage_name(s))] = stage(s).to_json();
  json out{
      {rf::kFormat, format},
      {rf::kProfile, profile},
      {rf::kStatus, std::string(record_status_name(status))},
      {rf::kFailure, optional_failure(failure)},
      {rf::kLevel, std::string(level_name(level))},
      {rf::kSource, source},
      {rf::kExporter, {{rf::exporter_key::kName, exporter.name}, {rf::exporter_key::kOptions, exporter.options}}},
      {rf::kOpset, {{rf::opset_key::kRequested, opset.requested}, {rf::opset_key::kModel, opset.model}}},
      {rf::kArtifacts, {{rf::artifacts_key::kDirectory, artifacts.directory},
                        {rf::artifacts_key::kModel, artifacts.model},
                        {rf::artifacts_key::kFiles, std::move(files)}}},
      {rf::kVersions, versions},
      {rf::kRuntime, {{rf::runtime_key::kName, runtime.name},
                      {rf::runtime_key::kVersion, runtime.version},
                      {rf::runtime_key::kProvider, runtime.provider},
                      {rf::runtime_key::kSession, runtime.session.to_json()}}},
      {rf::kInputCases, std::move(cases)},
      {rf::kTolerances, {{rf::tolerance_key::kRtol, tolerances.rtol.to_json()},
                         {rf::tolerance_key::kAtol, tolerances.atol.to_json()}}},
      {rf::kModelState, model_state},
      {rf::kStages, std::move(stage_entries)},
  };
  if (!runtime.provider_options.empty()) out[rf::kRuntime][rf::runtime_key::kProviderOptions] = runtime.provider_options;
  if (const auto judged = tolerances.precision ? precision_tolerance(*tolerances.precision) : std::nullopt) {
    namespace pk = rf::precision_key;
    out[rf::kTolerances][pk::kPrecision] = json{{pk::kName, std::string(precision_name(*tolerances.precision))},
                                                {pk::kRtol, judged->rtol},
                                                {pk::kAtol, judged->atol},
                                                {pk::kWhy, precision_why(*tolerances.precision)}};
  }
  std::visit(Overloaded{[&](const Brief& brief) {  // v1 (§5)
                          out[rf::kConfig] = brief.config;
                          out[rf::kDtype] = brief.dtype;
                        },
                        [&](const Module& keys) { write_module_keys(keys, out); }},  // §10, §11
             own);
  // The built-in net under other settings than the brief's: its v1 keys in §11's encoding.
  if (std::holds_alternative<Brief>(own) && format != kFormat) return built_in_model_record(out);
  return out;
}

Record Record::from_json(const json& record) {
  validate_record(record);  // throws ConformanceError naming every problem
  if (!is_built_in_model_record(record)) return read_record(record);
  Record r = read_record(brief_view(record));  // §11's kind "built-in": the v1 record it states,
  r.format = std::string(kModelFormat);         // in the format it was written in,
  r.runtime = read_runtime(record[rf::kRuntime]);  // with the settings it ran with
  return r;
}

}  // namespace nnx
