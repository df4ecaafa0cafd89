// A module record's precision (doc/record-format.md §10, "Precision"; base/precision.h). Only a module record
// may have `tolerances.precision`, exactly {name, rtol, atol, why}: `name` a precision other than float32
// (float32 is stated by leaving the key out), `rtol`, `atol` and `why` exactly that precision's. Then, once
// parity ran, `stages.parity.detail.precision` is exactly {name, float32_tolerance, cases_within_float32,
// cases_beyond_float32}: the same name, the record's own rtol and atol, and the two lists naming, each once in
// both together, every case whose outcome is match or mismatch with a numeric max_abs_error, and no other; a
// case beyond the float32 tolerance has a max_abs_error above its atol (at most atol is within it). Once the
// export passed, `stages.export.detail.precision` is {name, converter} with the same name and a non-empty
// converter. A record without `tolerances.precision` has neither detail key.
#include <array>
#include <map>
#include <set>
#include <string>

#include "base/json_view.h"
#include "base/model_kind.h"
#include "base/module_record_vocabulary.h"
#include "base/precision.h"
#include "record/validate_module.h"

namespace nnx::validation {
namespace {

namespace pk = rf::precision_key;

JsonView detail_of(const JsonView& record, Stage s) { return record[rf::kStages][stage_name(s)][rf::stage_key::kDetail]; }

bool ran(const JsonView& record, Stage s) {
  const JsonView status = record[rf::kStages][stage_name(s)][rf::stage_key::kStatus];
  return status.is_text("passed") || status.is_text("failed");
}

// tolerances.precision: the precision it names, when that and its tolerance are the rule's.
std::optional<Precision> stated_precision(const JsonView& stated, Problems& out) {
  const std::string where = at(rf::kTolerances, pk::kPrecision);
  if (!is_object_or_report(stated, where, out) || !exact_keys(stated, where, pk::kToleranceKeys, out)) return std::nullopt;
  const JsonView name = stated[pk::kName];
  const auto parsed = name.is_string() ? parse_precision(name.string()) : std::nullopt;
  if (!parsed || *parsed == Precision::float32) {
    std::string known;
    for (const auto& n : precision_names()) {
      if (n != precision_name(Precision::float32)) known += (known.empty() ? "" : ", ") + n;
    }
    out.push_back(at(where, pk::kName) + ": must be one of " + known + " (float32 leaves the key out), not " + text_of(name));
    return std::nullopt;
  }
  const Tolerance rule = *precision_tolerance(*parsed);
  double rtol = 0.0, atol = 0.0;
  if (!json_number(stated[pk::kRtol], rtol) || !json_number(stated[pk::kAtol], atol) || rtol != rule.rtol ||
      atol != rule.atol) {
    out.push_back(where + ": rtol and atol must be " + std::string(name.string()) + "'s (" + text_of(json(rule.rtol)) +
                  ", " + text_of(json(rule.atol)) + "), not " + text_of(stated[pk::kRtol]) + " and " +
                  text_of(stated[pk::kAtol]));
  }
  if (!stated[pk::kWhy].is_text(precision_why(*parsed))) {
    out.push_back(at(where, pk::kWhy) + ": must be the reason " + std::string(name.string()) + "'s tolerance has (\"" +
                  precision_why(*parsed) + "\"), not " + text_of(stated[pk::kWhy]));
  }
  return parsed;
}

// The cases a float32 verdict must name: {name: max_abs_error} of each match or mismatch case with one.
std::map<std::string, double, std::less<>> judged_cases(const JsonView& record) {
  std::map<std::string, double, std::less<>> out;
  for (const JsonView c : record[rf::kInputCases].items()) {
    const JsonView outcome = c[rf::case_key::kOutcome];
    double error = 0.0;
    if ((outcome.is_text(rf::kOutcomeMatch) || outcome.is_text(rf::kOutcomeMismatch)) && c[rf::case_key::kName].is_string() &&
        json_number(c[rf::case_key::kMaxAbsError], error)) {
      out.emplace(c[rf::case_key::kName].string(), error);
    }
  }
  return out;
}

void check_verdict_lists(const JsonView& verdict, const std::string& where, const JsonView& record, double atol,
                         Problems& out) {
  const auto judged = judged_cases(record);
  std::set<std::string, std::less<>> named;
  for (const char* key : {pk::kWithinFloat32, pk::kBeyondFloat32}) {
    const JsonView list = verdict[key];
    if (!list.is_array()) {
      out.push_back(at(where, key) + ": must be a list of case names, not " + text_of(list));
      continue;
    }
    for (const JsonView entry : list.items()) {
      const auto found = entry.is_string() ? judged.find(entry.string()) : judged.end();
      if (found == judged.end() || !named.insert(found->first).second) {
        out.push_back(at(where, key) + ": must name a compared case (match or mismatch, with max_abs_error), each once "
                      "in both lists, not " + text_of(entry));
        continue;
      }
      if (std::string_view(key) == pk::kBeyondFloat32 && found->second <= atol) {
        out.push_back(at(where, key) + ": case " + found->first + " has max_abs_error " + text_of(json(found->second)) +
                      ", within the float32 atol " + text_of(json(atol)) + ": it cannot be beyond that tolerance");
      }
    }
  }
  for (const auto& [name, error] : judged) {
    if (!named.contains(name)) out.push_back(where + ": names neither within nor beyond float32 the compared case " + name);
  }
}

void check_parity_verdict(const JsonView& record, Precision precision, Problems& out) {
  const std::string where = "stages.parity.detail.precision";
  const JsonView verdict = detail_of(record, Stage::parity)[pk::kPrecision];
  if (!verdict.exists()) {
    if (ran(record, Stage::parity)) out.push_back(where + ": missing (the record's tolerances name a precision)");
    return;
  }
  if (!is_object_or_report(verdict, where, out) || !exact_keys(verdict, where, pk::kDetailKeys, out)) return;
  if (!verdict[pk::kName].is_text(precision_name(precision))) {
    out.push_back(at(where, pk::kName) + ": must be " + std::string(precision_name(precision)) + ", the tolerances', not " +
                  text_of(verdict[pk::kName]));
  }
  const JsonView float32 = verdict[pk::kFloat32Tolerance], tolerances = record[rf::kTolerances];
  const std::string tol_where = at(where, pk::kFloat32Tolerance);
  double rtol = 0.0, atol = 0.0, own_rtol = 0.0, own_atol = 0.0;
  if (!is_object_or_report(float32, tol_where, out) || !exact_keys(float32, tol_where, rf::tolerance_key::kKeys, out)) return;
  if (!json_number(float32[pk::kRtol], rtol) || !json_number(float32[pk::kAtol], atol) ||
      !json_number(tolerances[pk::kRtol], own_rtol) || !json_number(tolerances[pk::kAtol], own_atol) || rtol != own_rtol ||
      atol != own_atol) {
    out.push_back(tol_where + ": must be the record's tolerances' rtol and atol, not " + text_of(float32[pk::kRtol]) +
                  " and " + text_of(float32[pk::kAtol]));
    return;
  }
  check_verdict_lists(verdict, where, record, atol, out);
}

void check_export_precision(const JsonView& record, Precision precision, Problems& out) {
  const std::string where = "stages.export.detail.precision";
  const JsonView stated = detail_of(record, Stage::export_model)[pk::kPrecision];
  const JsonView status = record[rf::kStages][stage_name(Stage::export_model)][rf::stage_key::kStatus];
  if (!stated.exists()) {
    if (status.is_text("passed")) out.push_back(where + ": missing (the record's tolerances name a precision)");
    return;
  }
  static constexpr std::array<const char*, 2> kKeys = {pk::kName, "converter"};
  if (!is_object_or_report(stated, where, out) || !exact_keys(stated, where, kKeys, out)) return;
  if (!stated[pk::kName].is_text(precision_name(precision))) {
    out.push_back(at(where, pk::kName) + ": must be " + std::string(precision_name(precision)) + ", not " +
                  text_of(stated[pk::kName]));
  }
  if (!stated["converter"].is_string() || stated["converter"].string().empty()) {
    out.push_back(at(where, "converter") + ": must name what converted the module or its graph, not " +
                  text_of(stated["converter"]));
  }
}

}  // namespace

bool takes_precision(const JsonView& record) {
  const JsonView format = record[rf::kFormat];
  const auto kind = format.is_string() ? model_kind_of_format(format.string()) : std::nullopt;
  return kind && model_kind_facts(*kind).exported && model_kind_facts(*kind).users_model;  // a new export of theirs
}

std::optional<Precision> record_precision(const JsonView& record) {
  const JsonView name = record[rf::kTolerances][pk::kPrecision][pk::kName];
  const auto parsed = name.is_string() ? parse_precision(name.string()) : std::nullopt;
  return parsed && *parsed != Precision::float32 ? parsed : std::nullopt;
}

void check_precision(const JsonView& record, Problems& out) {
  const JsonView stated = record[rf::kTolerances][pk::kPrecision];
  if (!stated.exists()) {
    for (const Stage s : {Stage::export_model, Stage::parity}) {
      if (detail_of(record, s)[pk::kPrecision].exists()) {
        out.push_back("stages." + std::string(stage_name(s)) + ".detail.precision: only a record whose tolerances name "
                      "a precision has it");
      }
    }
    return;
  }
  if (!takes_precision(record)) {
    out.push_back(at(rf::kTolerances, pk::kPrecision) + ": only a module record (" + std::string(kModuleFormat) +
                  ") has a precision");
    return;
  }
  const auto precision = stated_precision(stated, out);
  if (!precision) return;
  check_export_precision(record, *precision, out);
  check_parity_verdict(record, *precision, out);
}

}  // namespace nnx::validation
