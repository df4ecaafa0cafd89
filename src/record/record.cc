// The record's writer (record.h): a blank record, stage outcomes, and the summary derive_outcome gives.
// Record::to_json / from_json are in record_json.cc.
#include "record/record.h"

#include <utility>

#include "base/build_info.h"
#include "base/built_in_model_record.h"
#include "base/host_facts.h"
#include "base/model_record_vocabulary.h"
#include "profile/module_factory.h"

namespace nnx {
namespace {

// A stage of a JSON record as derive_outcome reads it; an unknown or missing status counts as not run and
// a failure that names no class as none.
StageOutcome stage_outcome_of(const json& stages, Stage s) {
  StageOutcome outcome;
  if (!stages.is_object()) return outcome;
  const auto it = stages.find(std::string(stage_name(s)));
  if (it == stages.end() || !it->is_object()) return outcome;
  const auto status = it->find(rf::stage_key::kStatus);
  if (status != it->end() && status->is_string()) {
    outcome.status = parse_stage_status(status->get<std::string>()).value_or(StageStatus::not_run);
  }
  const auto failure = it->find(rf::stage_key::kFailure);
  if (outcome.status == StageStatus::failed && failure != it->end() && failure->is_string()) {
    outcome.failure = parse_failure(failure->get<std::string>());
  }
  return outcome;
}

void write_outcome(json& record, const RecordOutcome& outcome) {
  record[rf::kStatus] = std::string(record_status_name(outcome.status));
  record[rf::kFailure] = outcome.failure ? json(std::string(failure_name(*outcome.failure))) : json(nullptr);
  record[rf::kLevel] = std::string(level_name(outcome.level));
}

}  // namespace

// ---- typed ------------------------------------------------------------------------------------------------

RecordCase RecordCase::blank(const InputCase& c) {
  RecordCase out;
  out.name = c.name;
  if (const CaseShape* shape = std::get_if<CaseShape>(&c.inputs)) out.inputs = *shape;  // else blank_module_parts'
  out.seed = c.seed;
  out.expect = c.expect;
  return out;
}

namespace {

// A module profile's blank record parts (§10): the module's fields, and each case's dims and input files
// (the k-th case expected to match stores test_data_set_<k>/, a refusal case refusal_cases/<name>/).
void blank_module_parts(Record& r, const Profile& profile, const std::vector<InputCase>& cases,
                        const std::optional<std::filesystem::path>& report_folder) {
  const ModuleSpec& spec = *profile.module_spec();
  r.format = std::string(model_kind_facts(profile.kind()).format);
  if (spec.precision != Precision::float32) r.tolerances.precision = spec.precision;
  const json given = spec.to_json();
  const std::string factory = report_folder ? factory_relative_to(spec.factory, *report_folder) : spec.factory;
  r.own = Record::Module{factory, nullptr, nullptr, nullptr, given[rf::kInputs], spec.every_dim_json(),
                         given[rf::kOutputs], profile.model_variant()};  // §11: an imported file's variant
  std::size_t match = 0;
  for (std::size_t i = 0; i < r.input_cases.size(); ++i) {
    RecordCase& rc = r.input_cases[i];
    const ModuleCase& mc = *cases[i].module();
    ModuleCaseFields fields{mc.dims, {}, std::nullopt};
    const bool matching = mc.expect == rf::kExpectMatch;
    for (std::size_t j = 0; j < spec.inputs.size(); ++j) {
      fields.inputs.push_back({spec.inputs[j].name, std::string(dtype_name(spec.inputs[j].dtype)), mc.input_shapes[j],
                               matching ? test_input_path(match, j) : refusal_input_path(mc.name, j), std::nullopt,
                               std::nullopt});
    }
    if (mc.data_set) {
      for (const GivenInput& g : spec.given.at(*mc.data_set).inputs) fields.inputs[g.input].given = g.relative;
    }
    if (matching) ++match;
    rc.inputs = std::move(fields);
  }
}

}  // namespace

Tolerance Record::Tolerances::judging() const {
  if (const auto judged = precision ? precision_tolerance(*precision) : std::nullopt) return *judged;
  return Tolerance{rtol.value(), atol.value()};
}

void RecordCase::reset() {
  outcome.reset();
  passed = false;
  failure.reset();
  max_abs_error.reset();
  max_rel_error.reset();
  detail.reset();
}

Record blank_record_of(const Profile& profile, const SourceInfo& source, const std::string& weights_sha256,
                       const std::optional<std::filesystem::path>& report_folder) {
  Record r;
  r.profile = profile.name;
  r.source = json{{rf::source_key::kRevision, source.revision},
                  {rf::source_key::kOrigin, source.origin},
                  {rf::source_key::kDirty, source.dirty},
                  {rf::source_key::kVersion, build_version()}};
  r.exporter = {profile.exporter, profile.exporter_options()};
  r.opset = {profile.opset_version, nullptr};
  r.artifacts = {profile.name, kModelFile, {}};
  r.versions = json{{rf::versions_key::kThisSoftware, build_version()}};
  r.runtime = {profile.runtime, nullptr, profile.provider, SessionOptions{}, {}};
  const std::vector<InputCase> cases = profile.input_cases();
  for (const auto& c : cases) r.input_cases.push_back(RecordCase::blank(c));
  r.tolerances = {profile.rtol, profile.atol, std::nullopt};
  switch (model_kind_facts(profile.kind()).form) {
    case RecordForm::named_tensors: blank_module_parts(r, profile, cases, report_folder); break;
    case RecordForm::brief:  // the built-in net's config, with its weights' digest, and dtype (§2)
      r.own = Record::Brief{profile.feed_forward().model.to_json(), profile.feed_forward().dtype};
      r.brief().config[rf::config_key::kWeightsSha256] = weights_sha256;
      break;
  }
  return r;
}

void Record::set_stage_passed(Stage s, json detail) { stage(s) = {StageStatus::passed, std::nullopt, std::move(detail)}; }

void Record::set_stage_failed(Stage s, FailureClass failure, json detail) {
  stage(s) = {StageStatus::failed, failure, std::move(detail)};
}

void Record::reset_stage(Stage s) { stage(s) = StageEntry{}; }

void Record::reset_input_cases() {
  for (auto& c : input_cases) c.reset();
}

RecordOutcome Record::derived_outcome() const {
  std::array<StageOutcome, kStageCount> outcomes;
  for (Stage s : kStages) outcomes[stage_index(s)] = {stage(s).status, stage(s).failure};
  bool cases_ran = false;
  for (const auto& c : input_cases) cases_ran = cases_ran || (c.outcome && runtime_returned_outputs(*c.outcome));
  return derive_outcome(outcomes, cases_ran && level_counts_run_cases(model_kind_facts(kind()).form));
}

void Record::finalize() {
  const RecordOutcome outcome = derived_outcome();
  status = outcome.status;
  failure = outcome.failure;
  level = outcome.level;
}

void Record::settle_format_for_settings() {
  if (format != kFormat) return;
  if (runtime.session == SessionOptions{} && runtime.provider == rf::runtime_key::kRequiredProvider &&
      runtime.provider_options.empty()) {
    return;
  }
  format = std::string(kModelFormat);
}

// ---- on JSON ----------------------------------------------------------------------------------------------

json session_options_json() { return SessionOptions{}.to_json(); }

void record_host_facts(Record& record) {
  if (record.format == kFormat) return;  // v1: the brief's versions, nothing of ours added
  record.versions[rf::versions_key::kHost] = this_host().to_json();
}

json blank_input_case(const InputCase& c) { return RecordCase::blank(c).to_json(); }

json blank_record(const Profile& profile, const SourceInfo& source, const std::string& weights_sha256) {
  return blank_record_of(profile, source, weights_sha256).to_json();
}

void set_stage_passed(json& record, Stage stage, json detail) {
  record[rf::kStages][std::string(stage_name(stage))] =
      StageEntry{StageStatus::passed, std::nullopt, std::move(detail)}.to_json();
}

void set_stage_failed(json& record, Stage stage, FailureClass failure, json detail) {
  record[rf::kStages][std::string(stage_name(stage))] =
      StageEntry{StageStatus::failed, failure, std::move(detail)}.to_json();
}

void finalize_record(json& record) {
  std::array<StageOutcome, kStageCount> outcomes;
  const json& stages = record[rf::kStages];
  for (Stage s : kStages) outcomes[stage_index(s)] = stage_outcome_of(stages, s);
  const auto kind = model_kind_of_record(record);
  bool cases_ran = false;
  const auto cases = record.find(rf::kInputCases);
  for (const auto& c : cases != record.end() && cases->is_array() ? *cases : json::array()) {
    const auto outcome = c.is_object() ? c.find(rf::case_key::kOutcome) : c.end();
    cases_ran = cases_ran || (c.is_object() && outcome != c.end() && outcome->is_string() &&
                              runtime_returned_outputs(outcome->get<std::string>()));
  }
  const bool counted = cases_ran && kind && level_counts_run_cases(model_kind_facts(*kind).form);
  write_outcome(record, derive_outcome(outcomes, counted));
}

}  // namespace nnx
