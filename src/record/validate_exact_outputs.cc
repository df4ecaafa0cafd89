// A module record's integer and bool outputs and dtype findings (doc/record-format.md §10, "Integer and bool
// outputs"; stages/exact_outputs.h): stages.parity.detail.exact_outputs, when present, is a non-empty list of
// {case, output, dtype, elements, differing, near_ties}: `case` a case that was compared (match or mismatch),
// `dtype` an integer or bool dtype name, 0 <= differing <= elements, `near_ties` null (the oracle cannot tell)
// or 0..differing; a `match` case has no entry whose differing exceeds its near ties. `dtype_differs`, when
// present, is a non-empty list of {case, output, runtime, reference}: two different dtype names, and its case
// a `mismatch`. Records without these keys (float outputs only) are not concerned.
#include <map>
#include <string>

#include "base/exact_compare.h"
#include "base/module_record_vocabulary.h"
#include "base/tensor.h"
#include "record/validate_module.h"

namespace nnx::validation {
namespace {

namespace ek = rf::exact_key;

// The record's cases by name: their outcome ("" when not a string).
std::map<std::string, std::string, std::less<>> outcomes(const JsonView& record) {
  std::map<std::string, std::string, std::less<>> by_name;
  for (const JsonView c : record[rf::kInputCases].items()) {
    const JsonView name = c[rf::case_key::kName], outcome = c[rf::case_key::kOutcome];
    if (name.is_string()) by_name[std::string(name.string())] = outcome.is_string() ? std::string(outcome.string()) : "";
  }
  return by_name;
}

// The outcome of the case an entry names, "" (with the problem) when it names none.
std::string named_outcome(const JsonView& entry, const std::string& where,
                          const std::map<std::string, std::string, std::less<>>& cases, Problems& out) {
  const JsonView name = entry[ek::kCase];
  const auto it = name.is_string() ? cases.find(name.string()) : cases.end();
  if (it == cases.end()) {
    out.push_back(at(where, ek::kCase) + ": " + text_of(name) + " names no input case");
    return "";
  }
  if (!entry[ek::kOutput].is_string() || entry[ek::kOutput].string().empty()) {
    out.push_back(at(where, ek::kOutput) + ": must be an output's name, not " + text_of(entry[ek::kOutput]));
  }
  return it->second;
}

void check_exact_entry(const JsonView& entry, const std::string& where,
                       const std::map<std::string, std::string, std::less<>>& cases, Problems& out) {
  if (!is_object_or_report(entry, where, out) || !exact_keys(entry, where, ek::kExactEntryKeys, out)) return;
  const std::string outcome = named_outcome(entry, where, cases, out);
  const JsonView dtype = entry[ek::kDtype];
  const auto parsed = dtype.is_string() ? parse_dtype(dtype.string()) : std::nullopt;
  if (!parsed || !compares_exactly(*parsed)) {
    out.push_back(at(where, ek::kDtype) + ": must be an integer or bool dtype, not " + text_of(dtype));
  }
  const auto elements = entry[ek::kElements].int64(), differing = entry[ek::kDiffering].int64();
  const JsonView ties = entry[ek::kNearTies];
  if (!elements || *elements < 0 || !differing || *differing < 0 || *differing > *elements) {
    out.push_back(where + ": elements and differing must be integers with 0 <= differing <= elements, not " +
                  text_of(entry[ek::kElements]) + " and " + text_of(entry[ek::kDiffering]));
    return;
  }
  const auto near = ties.int64();
  if (!ties.is_null() && (!near || *near < 0 || *near > *differing)) {
    out.push_back(at(where, ek::kNearTies) + ": must be null or an integer 0.." + std::to_string(*differing) +
                  ", not " + text_of(ties));
    return;
  }
  if (outcome != rf::kOutcomeMatch && outcome != rf::kOutcomeMismatch && !outcome.empty()) {
    out.push_back(at(where, ek::kCase) + ": names a case that was not compared (" + quote(outcome) + ")");
  }
  if (outcome == rf::kOutcomeMatch && *differing > near.value_or(0)) {
    out.push_back(where + ": " + std::to_string(*differing - near.value_or(0)) +
                  " differing element(s) that are not near ties, but its case is a match");
  }
}

void check_dtype_entry(const JsonView& entry, const std::string& where,
                       const std::map<std::string, std::string, std::less<>>& cases, Problems& out) {
  if (!is_object_or_report(entry, where, out) || !exact_keys(entry, where, ek::kDtypeEntryKeys, out)) return;
  const std::string outcome = named_outcome(entry, where, cases, out);
  const JsonView runtime = entry[ek::kRuntime], reference = entry[ek::kReference];
  const bool named = runtime.is_string() && parse_dtype(runtime.string()) && reference.is_string() &&
                     parse_dtype(reference.string());
  if (!named || runtime.string() == reference.string()) {
    out.push_back(where + ": runtime and reference must be two different dtype names, not " + text_of(runtime) +
                  " and " + text_of(reference));
  }
  if (!outcome.empty() && outcome != rf::kOutcomeMismatch) {
    out.push_back(at(where, ek::kCase) + ": a dtype that differs makes its case a mismatch, not " + quote(outcome));
  }
}

}  // namespace

void for_each_parity_entry(const JsonView& record, const char* key, Problems& out,
                           const std::function<void(const JsonView& entry, const std::string& where)>& check) {
  const JsonView list = record[rf::kStages][stage_name(Stage::parity)][rf::stage_key::kDetail][key];
  if (!list.exists()) return;
  const std::string where = at(at(at(rf::kStages, stage_name(Stage::parity)), rf::stage_key::kDetail), key);
  if (!list.is_array() || list.empty()) {
    out.push_back(where + ": must be a non-empty list, not " + text_of(list));
    return;
  }
  std::size_t i = 0;
  for (const JsonView entry : list.items()) check(entry, where + "[" + std::to_string(i++) + "]");
}

void check_exact_outputs(const JsonView& record, Problems& out) {
  const auto cases = outcomes(record);
  for_each_parity_entry(record, ek::kExactOutputs, out, [&](const JsonView& entry, const std::string& where) {
    check_exact_entry(entry, where, cases, out);
  });
  for_each_parity_entry(record, ek::kDtypeDiffers, out, [&](const JsonView& entry, const std::string& where) {
    check_dtype_entry(entry, where, cases, out);
  });
}

}  // namespace nnx::validation
