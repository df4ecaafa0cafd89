// The stages of a record, the summary they give (status, failure, level) and model_state against the
// export stage (doc/record-format.md §4 export, §5, §6 stages and model_state).
#include <algorithm>
#include <string>
#include <string_view>

#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"
#include "record/validate_internal.h"

namespace nnx::validation {
namespace {

std::string failure_text(const std::optional<FailureClass>& failure) {
  return failure ? quote(failure_name(*failure)) : text_of(json(nullptr));
}

// One stage entry's status and failure class; `where` is "stages.<name>".
StageView check_stage_entry(const JsonView& entry, Stage s, const std::string& where, Problems& out) {
  StageView sv;
  const JsonView status = member(entry, rf::stage_key::kStatus);
  if (status.is_string()) sv.status = parse_stage_status(status.string());
  if (!sv.status) out.push_back(at(where, rf::stage_key::kStatus) + ": unknown status " + text_of(status));
  const JsonView failure = member(entry, rf::stage_key::kFailure);
  const auto failure_where = [&] { return at(where, rf::stage_key::kFailure); };
  if (sv.status == StageStatus::failed) {
    const auto cls = failure.is_string() ? parse_failure(failure.string()) : std::nullopt;
    if (failure.is_null()) {
      out.push_back(where + ": failed without a failure class");
    } else if (!cls) {
      out.push_back(failure_where() + ": unknown failure class " + text_of(failure));
    } else if (const Stage owner = failure_stage(*cls); owner != s) {
      out.push_back(failure_where() + ": " + text_of(failure) + " is a failure class of stage " +
                    std::string(stage_name(owner)) + ", not " + std::string(stage_name(s)));
    } else {
      sv.failure = cls;
    }
  } else if (sv.status && !failure.is_null()) {
    out.push_back(failure_where() + ": " + text_of(failure) + " on a stage that did not fail (status " +
                  quote(stage_status_name(*sv.status)) + ")");
  }
  return sv;
}

// The parts of model_state that show a change ("parameters, modes"); false when a part is not a boolean.
bool changed_parts(const JsonView& state, std::vector<std::string>& changed, Problems& out) {
  bool well_formed = true;
  exact_keys(state, rf::kModelState, rf::model_state_key::kKeys, out);
  for (const char* part : rf::model_state_key::kKeys) {
    const JsonView v = member(state, part);
    if (!v.is_boolean()) {
      if (v.exists()) out.push_back(at(rf::kModelState, part) + ": must be a boolean, not " + json_type_name(v));
      well_formed = false;
    } else if (!v.boolean()) {
      changed.push_back(part);
    }
  }
  return well_formed;
}

}  // namespace

const StageView& stage(const Stages& view, Stage s) { return view[stage_index(s)]; }

Stages check_stages(const JsonView& record, Problems& out) {
  Stages view;
  const JsonView stages = member(record, rf::kStages);
  if (!stages.exists() || !is_object_or_report(stages, rf::kStages, out)) return view;
  std::vector<std::string_view> unknown;
  for (const auto& [k, v] : stages.members()) {
    if (!parse_stage(k)) unknown.push_back(k);
  }
  std::sort(unknown.begin(), unknown.end());  // in key order, as a json object holds them
  for (std::string_view k : unknown) out.push_back(at(rf::kStages, k) + ": not one of the five stages");
  std::optional<std::string> blocked_by;  // the first stage that did not pass
  for (Stage s : kStages) {
    const std::string_view name = stage_name(s);
    const std::string where = at(rf::kStages, name);
    const JsonView entry = stages[name];
    if (!entry.exists()) {
      out.push_back(where + ": missing");
      continue;
    }
    if (!is_object_or_report(entry, where, out)) continue;
    exact_keys(entry, where, rf::stage_key::kKeys, out);
    const StageView& sv = view[stage_index(s)] = check_stage_entry(entry, s, where, out);
    if (blocked_by && sv.status && *sv.status != StageStatus::not_run) {
      out.push_back(where + ": ran after " + *blocked_by + " did not pass");
    }
    if (!blocked_by && sv.status && *sv.status != StageStatus::passed) blocked_by = std::string(name);
  }
  return view;
}

void check_summary(const JsonView& record, const Stages& view, Problems& out) {
  const JsonView status = member(record, rf::kStatus);
  const JsonView failure = member(record, rf::kFailure);
  const JsonView level = member(record, rf::kLevel);
  const bool status_known = status.is_string() && parse_record_status(status.string());
  if (status.exists() && !status_known) {
    out.push_back(std::string(rf::kStatus) + ": unknown status " + text_of(status));
  }
  const bool failure_known = failure.is_null() || (failure.is_string() && parse_failure(failure.string()));
  if (failure.exists() && !failure_known) {
    out.push_back(std::string(rf::kFailure) + ": unknown failure class " + text_of(failure));
  }
  const bool level_known = level.is_string() && parse_level(level.string());
  if (level.exists() && !level_known) {
    out.push_back(std::string(rf::kLevel) + ": unknown level " + text_of(level));
  }

  std::array<StageOutcome, kStageCount> stages;
  for (Stage s : kStages) {
    const StageView& sv = stage(view, s);
    if (!sv.status) return;  // the stages are already refused; nothing to compare with
    stages[stage_index(s)] = {*sv.status, sv.failure};
  }
  const JsonView format = member(record, rf::kFormat);
  const auto kind = format.is_string() ? model_kind_of_format(format.string()) : std::nullopt;
  bool cases_ran = false;
  for (const JsonView& c : member(record, rf::kInputCases).items()) {
    const JsonView outcome = member(c, rf::case_key::kOutcome);
    cases_ran = cases_ran || (outcome.is_string() && runtime_returned_outputs(outcome.string()));
  }
  const bool counted = cases_ran && kind && level_counts_run_cases(model_kind_facts(*kind).form);
  const RecordOutcome want = derive_outcome(stages, counted);
  const std::string_view want_status = record_status_name(want.status);
  if (status_known && !status.is_text(want_status)) {
    out.push_back(std::string(rf::kStatus) + ": " + text_of(status) + " contradicts the stages (they give " +
                  quote(want_status) + ")");
  }
  const json want_failure = want.failure ? json(std::string(failure_name(*want.failure))) : json(nullptr);
  const bool want_failure_known = !want.first_failed || want.failure;  // a failed stage may name no known class
  const bool same_failure = want.failure ? failure.is_text(failure_name(*want.failure)) : failure.is_null();
  if (failure_known && want_failure_known && !same_failure) {
    out.push_back(std::string(rf::kFailure) + ": " + text_of(failure) + " contradicts the stages (they give " +
                  text_of(want_failure) +
                  (want.first_failed ? ", the class of the first failed stage " + std::string(stage_name(*want.first_failed))
                                     : "") +
                  ")");
  }
  const std::string_view want_level = level_name(want.level);
  if (level_known && !level.is_text(want_level)) {
    out.push_back(std::string(rf::kLevel) + ": " + text_of(level) + " contradicts the stages (they give " +
                  quote(want_level) + ")");
  }
}

void check_model_state(const JsonView& record, const Stages& view, Problems& out) {
  const JsonView state = record[rf::kModelState];
  if (!state.exists()) return;
  const std::string where = rf::kModelState;
  if (record[rf::kFormat].is_text(kModelFormat)) {  // §11: an imported file, no module whose state is proven
    if (!state.is_null()) out.push_back(where + ": must be null for an imported ONNX file (§11)");
    return;
  }
  std::vector<std::string> changed_list;  // parts showing a change
  bool well_formed = true;
  if (!state.is_null()) {
    if (!state.is_object()) {
      out.push_back(where + ": must be null or an object, not " + json_type_name(state));
      return;
    }
    well_formed = changed_parts(state, changed_list, out);
  }
  const StageView& exported = stage(view, Stage::export_model);
  if (!exported.status) return;
  std::string changed;
  for (const auto& p : changed_list) changed += (changed.empty() ? "" : ", ") + p;
  if (*exported.status == StageStatus::not_run) {
    if (!state.is_null()) out.push_back(where + ": present although the export did not run");
    return;
  }
  if (!well_formed) return;
  if (*exported.status == StageStatus::passed) {
    if (state.is_null()) {
      out.push_back(where + ": null after a passed export");
    } else if (!changed_list.empty()) {
      out.push_back(where + ": not all true after a passed export (" + changed + " changed)");
    }
    return;
  }
  if (exported.failure == FailureClass::state_changed) {
    if (state.is_null()) {
      out.push_back(where + ": null after " + std::string(failure_name(FailureClass::state_changed)) +
                    " (it must show the change)");
    } else if (changed_list.empty()) {
      out.push_back(where + ": shows no change after " + std::string(failure_name(FailureClass::state_changed)));
    }
  } else if (exported.failure && !changed_list.empty()) {
    out.push_back(where + ": shows a change (" + changed + ") after " + failure_text(exported.failure));
  }
}

}  // namespace nnx::validation
