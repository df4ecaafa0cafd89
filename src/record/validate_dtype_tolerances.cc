// A module record's dtype-aware tolerances (doc/record-format.md §10, "Half-precision outputs";
// base/dtype_tolerance.h): stages.parity.detail.dtype_tolerances, when present, is a non-empty list of
// {output, dtype, rtol, atol}, each output named once, `dtype` float16 or bfloat16, and `rtol`/`atol` exactly
// the record's tolerances widened to that dtype's epsilon (tolerance_for). `tolerance_of_output` gives the
// tolerance an output was judged by, for the other checks of the parity detail (a vacuous tolerance's).
#include <set>
#include <string>

#include "base/dtype_tolerance.h"
#include "base/json_view.h"
#include "base/module_record_vocabulary.h"
#include "record/validate_module.h"

namespace nnx::validation {
namespace {

namespace dk = rf::dtype_tolerance_key;

JsonView entries_of(const JsonView& record) {
  return record[rf::kStages][stage_name(Stage::parity)][rf::stage_key::kDetail][dk::kDtypeTolerances];
}

void check_entry(const JsonView& entry, const std::string& where, const Tolerance& profile,
                 std::set<std::string, std::less<>>& outputs, Problems& out) {
  if (!is_object_or_report(entry, where, out) || !exact_keys(entry, where, dk::kEntryKeys, out)) return;
  const JsonView output = entry[dk::kOutput], dtype = entry[dk::kDtype];
  if (!output.is_string() || output.string().empty() || !outputs.emplace(output.string()).second) {
    out.push_back(at(where, dk::kOutput) + ": must be an output's name, each once, not " + text_of(output));
  }
  const auto parsed = dtype.is_string() ? parse_dtype(dtype.string()) : std::nullopt;
  if (!parsed || !half_epsilon(*parsed)) {
    out.push_back(at(where, dk::kDtype) + ": must be float16 or bfloat16, not " + text_of(dtype));
    return;
  }
  const Tolerance used = tolerance_for(*parsed, profile);
  double rtol = 0.0, atol = 0.0;
  if (!json_number(entry[dk::kRtol], rtol) || !json_number(entry[dk::kAtol], atol) || rtol != used.rtol ||
      atol != used.atol) {
    out.push_back(where + ": rtol and atol must be the record's widened to the " + std::string(dtype.string()) +
                  " epsilon (" + text_of(json(used.rtol)) + ", " + text_of(json(used.atol)) + "), not " +
                  text_of(entry[dk::kRtol]) + " and " + text_of(entry[dk::kAtol]));
  }
}

}  // namespace

std::optional<Tolerance> record_tolerance(const JsonView& record) {
  double rtol = 0.0, atol = 0.0;
  const JsonView tolerances = record[rf::kTolerances];
  if (!json_number(tolerances[rf::tolerance_key::kRtol], rtol) || !json_number(tolerances[rf::tolerance_key::kAtol], atol)) {
    return std::nullopt;
  }
  if (const auto precision = record_precision(record)) return *precision_tolerance(*precision);  // judged by it
  return Tolerance{rtol, atol};
}

Tolerance tolerance_of_output(const JsonView& record, std::string_view output, const Tolerance& profile) {
  for (const JsonView entry : entries_of(record).items()) {
    const JsonView dtype = entry[dk::kDtype];
    const auto parsed = dtype.is_string() ? parse_dtype(dtype.string()) : std::nullopt;
    if (entry[dk::kOutput].is_text(output) && parsed) return tolerance_for(*parsed, profile);
  }
  return profile;
}

void check_dtype_tolerances(const JsonView& record, Problems& out) {
  const auto profile = record_tolerance(record);
  if (!profile) return;  // the tolerances' own rule names the problem
  std::set<std::string, std::less<>> outputs;
  for_each_parity_entry(record, dk::kDtypeTolerances, out, [&](const JsonView& entry, const std::string& where) {
    check_entry(entry, where, *profile, outputs, out);
  });
}

}  // namespace nnx::validation
