// A record's own numbers against its verdicts (doc/record-format.md §6, "Here:"): parity's triangulation
// (stages.parity.detail.triangulation, stages/triangulation.h; either format's) names the compared cases, and
// each entry's `margin` is its case's worst error over the allowed one. A case passes iff its margin is
// within the tolerance: margin_within (base/tolerance_compare.h), the comparison the parity stage made. So a
// record is refused, naming the case, when an entry names no case or one that was not compared, names a case
// twice (a v1 record may hold several cases of one name, batches being kept as given: the k-th entry of a
// name is the k-th compared case of that name), carries a margin that is neither null nor a finite number >= 0, or whose margin's verdict is not
// its case's: a `match` whose margin is above 1 (or null), a `mismatch` with finite errors whose margin is at
// most 1; or whose departure (runtime_vs_oracle, reference_vs_oracle, native_vs_reference) was not measured
// (max_abs_error null) without margin null and a non-empty `reason`, or gives a `reason` beside a measured
// max_abs_error. A record without a triangulation (the original's: its parity detail is {cases, compared}) states no
// margin, and nothing here applies.
#include <cmath>
#include <map>
#include <vector>
#include <string>

#include "base/tolerance_compare.h"
#include "record/validate_internal.h"

namespace nnx::validation {
namespace {

namespace tk = rf::triangulation_key;

struct NamedCase {
  std::string label;  // "input_cases[i] (name)"
  bool compared = false;
  bool match = false;
};

// The record's cases by name, in order: a module record's names are unique (validate_module_cases.cc), a v1
// record's are not (batches are kept as given, §3: batches [2, 2] make two cases "batch-2").
struct CasesOfName {
  std::string first_label;          // the first case of the name
  std::vector<NamedCase> compared;  // those compared, in order
};
using CasesByName = std::map<std::string, CasesOfName, std::less<>>;

CasesByName cases_by_name(const JsonView& record) {
  CasesByName named;
  std::size_t i = 0;
  for (const JsonView c : record[rf::kInputCases].items()) {
    const JsonView name = c[rf::case_key::kName];
    const JsonView outcome = c[rf::case_key::kOutcome];
    const std::size_t index = i++;
    if (!name.is_string() || !outcome.is_string()) continue;
    const bool has_errors = !c[rf::case_key::kMaxAbsError].is_null() || !c[rf::case_key::kMaxRelError].is_null();
    NamedCase entry{std::string(rf::kInputCases) + "[" + std::to_string(index) + "] (" + std::string(name.string()) + ")",
                    is_compared_outcome(outcome.string(), has_errors), outcome.is_text(rf::kOutcomeMatch)};
    CasesOfName& of_name = named[std::string(name.string())];
    if (of_name.first_label.empty()) of_name.first_label = entry.label;
    if (entry.compared) of_name.compared.push_back(std::move(entry));
  }
  return named;
}

// One entry against the case it names: the next compared case of that name not yet triangulated (`taken`
// counts them per name).
void check_entry(const JsonView& entry, const std::string& where, const CasesByName& named,
                 std::map<std::string, std::size_t, std::less<>>& taken, Problems& out) {
  const JsonView name = entry[tk::kCase];
  const auto found = name.is_string() ? named.find(name.string()) : named.end();
  if (found == named.end()) {
    out.push_back(at(where, tk::kCase) + ": " + text_of(name) + " names no input case of the record");
    return;
  }
  const std::vector<NamedCase>& compared = found->second.compared;
  if (compared.empty()) {
    out.push_back(where + ": triangulates " + found->second.first_label + ", which was not compared (no errors)");
    return;
  }
  std::size_t& index = taken[found->first];
  if (index >= compared.size()) {
    out.push_back(where + ": triangulates " + compared.back().label + " a second time");
    return;
  }
  const NamedCase& c = compared[index++];
  const JsonView margin = entry[tk::kMargin];
  double value = 0.0;
  const bool number = json_number(margin, value);
  if (!margin.is_null() && !(number && std::isfinite(value) && value >= 0.0)) {
    out.push_back(at(where, tk::kMargin) + ": must be null or a finite number >= 0, not " + text_of(margin));
    return;
  }
  const std::optional<double> stated = number ? std::optional<double>(value) : std::nullopt;
  if (margin_within(stated) == c.match) return;
  out.push_back(c.label + ": " + (c.match ? "passed (outcome \"match\") although its margin " + text_of(margin) +
                                                " is not within the tolerance (at most 1)"
                                          : "failed (outcome \"mismatch\") although its margin " + text_of(margin) +
                                                " is within the tolerance (at most 1)") +
                " (" + where + ")");
}

// An entry's departures: one that was measured has a number max_abs_error (its margin null only when
// infinite) and no reason; one that was not (a module record's stored oracle holding a value that is not
// finite, §10) has max_abs_error and margin null and says why in a non-empty `reason`.
void check_departures(const JsonView& entry, const std::string& where, Problems& out) {
  for (const char* key : {tk::kRuntimeVsOracle, tk::kReferenceVsOracle, tk::kNativeVsReference}) {
    const JsonView departure = entry[key];
    if (!departure.is_object()) continue;
    const JsonView error = departure[tk::kMaxAbsError];
    const JsonView reason = departure[tk::kReason];
    const bool unmeasured = error.exists() && error.is_null();
    if (unmeasured && !(departure[tk::kMargin].is_null() && reason.is_string() && !reason.string().empty())) {
      out.push_back(at(where, key) + ": a departure not measured (max_abs_error null) must have margin null and "
                    "a non-empty reason saying why, not margin " + text_of(departure[tk::kMargin]) +
                    " and reason " + text_of(reason));
    } else if (!unmeasured && reason.exists()) {
      out.push_back(at(where, key) + ": a reason is given only for a departure not measured (max_abs_error and "
                    "margin null), not beside max_abs_error " + text_of(error));
    }
  }
}

}  // namespace

void check_triangulation(const JsonView& record, Problems& out) {
  const JsonView detail = record[rf::kStages][stage_name(Stage::parity)][rf::stage_key::kDetail];
  const JsonView triangulation = detail[rf::detail_key::kTriangulation];
  if (!triangulation.exists()) return;
  const std::string where = at(at(at(rf::kStages, stage_name(Stage::parity)), rf::stage_key::kDetail),
                               rf::detail_key::kTriangulation);
  if (!triangulation.is_array()) {
    out.push_back(where + ": must be a list, not " + json_type_name(triangulation));
    return;
  }
  const auto named = cases_by_name(record);
  std::map<std::string, std::size_t, std::less<>> taken;
  std::size_t i = 0;
  for (const JsonView entry : triangulation.items()) {
    const std::string entry_where = where + "[" + std::to_string(i++) + "]";
    if (!is_object_or_report(entry, entry_where, out)) continue;
    check_entry(entry, entry_where, named, taken, out);
    check_departures(entry, entry_where, out);
  }
}

}  // namespace nnx::validation
