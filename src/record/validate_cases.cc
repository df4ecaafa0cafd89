// The input cases of a record: their fields, the case table of doc/record-format.md §5 and the parity stage
// (§4 parity, §6 input cases). The rules are those of either format's cases (§10: a module record's case
// holds dims, inputs and outputs where v1's holds shape; its CaseShapeRule is validate_module_cases.cc's).
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/json_fields.h"
#include "base/limits.h"
#include "record/validate_internal.h"

namespace nnx::validation {
namespace {

bool is_error_value(const JsonView& v) {
  double d = 0.0;
  return v.is_null() || (json_number(v, d) && std::isfinite(d) && d >= 0.0);
}

bool is_seed(const JsonView& v) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) return v.unsigned_integer() < limits::kMaxSeed;
  return v.integer() >= 0;
}

bool is_case_shape(const JsonView& v) {
  if (!v.is_array() || v.size() != 2) return false;
  std::int64_t product = 1;
  for (const JsonView d : v.items()) {
    if (!d.is_number_integer()) return false;
    if (d.is_number_unsigned() && d.unsigned_integer() > std::uint64_t(limits::kMaxCaseWidth)) return false;
    const std::int64_t n = d.integer();
    if (n < 1 || n > limits::kMaxCaseWidth) return false;
    product *= n;
  }
  return product <= limits::kMaxCaseValues;
}

bool is_outcome(const JsonView& v) {
  for (const char* outcome : rf::kOutcomes) {
    if (is_text(v, outcome)) return true;
  }
  return false;
}

std::string failure_json_text(const std::optional<FailureClass>& failure) {
  return failure ? quote(failure_name(*failure)) : text_of(json(nullptr));
}

// The case's failure: null, or a parity class; anything else is named.
void check_case_failure(const JsonView& failure, const std::string& where, Problems& out, bool& ok) {
  if (failure.is_null()) return;
  const auto cls = failure.is_string() ? parse_failure(failure.string()) : std::nullopt;
  if (!cls) {
    out.push_back(where + ": unknown failure class " + text_of(failure));
    ok = false;
  } else if (failure_stage(*cls) != Stage::parity) {
    out.push_back(where + ": " + text_of(failure) + " is a failure class of stage " +
                  std::string(stage_name(failure_stage(*cls))) + ", not " + std::string(stage_name(Stage::parity)));
    ok = false;
  }
}

// One case's keys and types; true when the case table may be applied to it. `c` is the case read once
// against its keys (KnownMembers): the rules below ask each of them several times.
template <class CaseMembers>
bool check_case_fields(const CaseMembers& c, const std::string& label, const CaseShapeRule& shape_rule,
                       Problems& out) {
  namespace key = rf::case_key;
  bool ok = exact_keys(c, label, out);
  auto bad = [&](const char* field, const std::string& what) {
    out.push_back(at(label, field) + ": " + what);
    ok = false;
  };
  const JsonView name = member(c, key::kName);
  if (!name.is_string() || name.string().empty()) {
    bad(key::kName, "must be a non-empty string, not " + text_of(name));
  }
  if (!shape_rule(c.object(), label, out)) ok = false;
  const JsonView seed = member(c, key::kSeed);
  if (!is_seed(seed)) bad(key::kSeed, text_of(seed) + " is not an integer in [0, 2^63)");
  const JsonView expect = member(c, key::kExpect);
  if (!is_text(expect, rf::kExpectMatch) && !is_text(expect, rf::kExpectRejected)) {
    bad(key::kExpect, "must be " + quote(rf::kExpectMatch) + " or " + quote(rf::kExpectRejected) + ", not " +
                          text_of(expect));
  }
  const JsonView outcome = member(c, key::kOutcome);
  if (!outcome.is_null() && !is_outcome(outcome)) bad(key::kOutcome, text_of(outcome) + " is an outcome no run gives");
  const JsonView passed = member(c, key::kPassed);
  if (!passed.is_boolean()) bad(key::kPassed, "must be a boolean, not " + json_type_name(passed));
  const JsonView failure = member(c, key::kFailure);
  if (!failure.is_null()) check_case_failure(failure, at(label, key::kFailure), out, ok);
  for (const char* error : key::kErrors) {
    if (!is_error_value(member(c, error))) {
      bad(error, "must be null or a finite number >= 0, not " + text_of(member(c, error)));
    }
  }
  const JsonView detail = member(c, key::kDetail);
  if (!detail.is_null() && !detail.is_string()) bad(key::kDetail, "must be null or a string, not " + json_type_name(detail));
  return ok;
}

// Errors and detail of a case with an outcome: a compared outcome carries both errors and no detail,
// every other outcome no errors and a string detail.
template <class CaseMembers>
void check_case_evidence(const CaseMembers& c, const std::string& label, std::string_view o, Problems& out) {
  namespace key = rf::case_key;
  const bool has_abs = !c[key::kMaxAbsError].is_null(), has_rel = !c[key::kMaxRelError].is_null();
  const bool has_detail = !c[key::kDetail].is_null();
  if (is_compared_outcome(o, has_abs || has_rel)) {
    if (!has_abs || !has_rel) {
      out.push_back(label + ": compared outcome " + quote(o) + " must carry both " + key::kMaxAbsError + " and " +
                    key::kMaxRelError);
    }
    if (has_detail) out.push_back(label + ": compared outcome " + quote(o) + " must carry a null detail");
  } else {
    if (has_abs || has_rel) out.push_back(label + ": outcome " + quote(o) + " must carry null errors");
    if (!has_detail) out.push_back(label + ": outcome " + quote(o) + " must carry a string detail");
  }
}

// The case table of §5 for a case whose fields are well typed.
template <class CaseMembers>
void check_case_table(const CaseMembers& c, const std::string& label, Problems& out) {
  namespace key = rf::case_key;
  const JsonView outcome = c[key::kOutcome];
  const JsonView failure = c[key::kFailure];
  const bool passed = c[key::kPassed].boolean();
  if (outcome.is_null()) {
    if (passed || !failure.is_null() || !c[key::kMaxAbsError].is_null() || !c[key::kMaxRelError].is_null() ||
        !c[key::kDetail].is_null()) {
      out.push_back(label + ": a case without an outcome must be blank (passed false; failure, errors and detail null)");
    }
    return;
  }
  const std::string_view o = outcome.string();
  const std::string_view expect = c[key::kExpect].string();
  const CaseRule* rule = case_rule(o, expect);
  if (!rule) {
    out.push_back(label + ": outcome " + quote(o) + " is not an outcome any run gives for expect " + quote(expect));
  } else if (rule->failure ? !failure.is_text(failure_name(*rule->failure)) : !failure.is_null()) {
    const json want = rule->failure ? json(std::string(failure_name(*rule->failure))) : json(nullptr);
    out.push_back(label + ": outcome " + quote(o) + " with failure " + text_of(failure) + " is not allowed for expect " +
                  quote(expect) + " (the table gives " + text_of(want) + ")");
  }
  if (passed != failure.is_null()) {
    out.push_back(label + ": passed " + (passed ? "true" : "false") + " with failure " + text_of(failure) +
                  " (a case passes iff its failure is null)");
  }
  check_case_evidence(c, label, o, out);
}

// A failed parity names the first class (runtime-error, mismatch, input-contract) among its failing cases.
void check_parity_failure(const JsonView& cases, const StageView& parity, Problems& out) {
  const std::string where = at(rf::kStages, stage_name(Stage::parity));
  std::vector<FailureClass> case_failures;
  for (const JsonView c : cases.items()) {
    const JsonView failure = c[rf::case_key::kFailure];
    if (!failure.is_string()) continue;
    if (const std::optional<FailureClass> cls = parse_failure(failure.string())) case_failures.push_back(*cls);
  }
  const std::optional<FailureClass> first = parity_failure_class(case_failures);
  if (!first) {
    out.push_back(where + ": failed with " + failure_json_text(parity.failure) + " but no input case failed");
  } else if (parity.failure != first) {
    out.push_back(at(where, rf::stage_key::kFailure) + ": " + failure_json_text(parity.failure) +
                  " is not the first class named by its failing cases (" + failure_json_text(first) + ")");
  }
}

std::string case_label(const JsonView& c, std::size_t i) {
  std::string label = std::string(rf::kInputCases) + "[" + std::to_string(i) + "]";
  const JsonView name = member(c, rf::case_key::kName);
  if (name.is_string()) {
    label += " (";
    label += name.string();
    label += ")";
  }
  return label;
}

// A case against the parity stage: an outcome iff parity ran; every case passed when parity passed.
template <class CaseMembers>
void check_case_against_parity(const CaseMembers& c, const std::string& label, const StageView& parity, Problems& out) {
  const JsonView outcome = c[rf::case_key::kOutcome];
  if (parity.status == StageStatus::not_run && !outcome.is_null()) {
    out.push_back(label + ": outcome " + text_of(outcome) + " although parity did not run");
  }
  if ((parity.status == StageStatus::passed || parity.status == StageStatus::failed) && outcome.is_null()) {
    out.push_back(label + ": no outcome although parity ran");
  }
  if (parity.status == StageStatus::passed && !c[rf::case_key::kPassed].boolean()) {
    out.push_back(at(rf::kStages, stage_name(Stage::parity)) + ": passed although " + label + " did not pass");
  }
}

}  // namespace

template <std::size_t N>
void check_case_list(const JsonView& record, const Stages& view, const std::array<const char*, N>& keys,
                     const CaseShapeRule& shape_rule, Problems& out) {
  const JsonView cases = record[rf::kInputCases];
  if (!cases.exists()) return;
  if (!cases.is_array()) {
    out.push_back(std::string(rf::kInputCases) + ": must be a list, not " + json_type_name(cases));
    return;
  }
  const StageView& parity = stage(view, Stage::parity);
  std::size_t valid_cases = 0;
  bool all_well_typed = true;
  std::size_t i = 0;
  for (const JsonView item : cases.items()) {
    const std::string label = case_label(item, i++);
    if (!is_object_or_report(item, label, out)) {
      all_well_typed = false;
      continue;
    }
    const KnownMembers<N> c(item, keys);
    if (is_text(member(c, rf::case_key::kExpect), rf::kExpectMatch)) ++valid_cases;
    if (!check_case_fields(c, label, shape_rule, out)) {
      all_well_typed = false;
      continue;
    }
    check_case_table(c, label, out);
    check_case_against_parity(c, label, parity, out);
  }
  if (valid_cases == 0) {
    out.push_back(std::string(rf::kInputCases) + ": no valid (" + quote(rf::kExpectMatch) + ") case");
  }
  if (parity.status == StageStatus::failed && parity.failure && all_well_typed) check_parity_failure(cases, parity, out);
}

template void check_case_list(const JsonView&, const Stages&, const std::array<const char*, 10>&, const CaseShapeRule&,
                              Problems&);
template void check_case_list(const JsonView&, const Stages&, const std::array<const char*, 12>&, const CaseShapeRule&,
                              Problems&);

void check_cases(const JsonView& record, const Stages& view, Problems& out) {
  static const CaseShapeRule shape_rule = [](const JsonView& item, const std::string& label, Problems& problems) {
    const JsonView shape = item[rf::case_key::kShape];
    if (is_case_shape(shape)) return true;
    problems.push_back(at(label, rf::case_key::kShape) + ": " + text_of(shape) +
                       " is not two integers, each 1..65537, with a product <= 2^24");
    return false;
  };
  check_case_list(record, view, rf::case_key::kKeys, shape_rule, out);
}

}  // namespace nnx::validation
