// A module record's vacuous tolerance (doc/record-format.md §10, "A tolerance that cannot fail";
// stages/vacuous_tolerance.h): stages.parity.detail.vacuous_tolerance, when present, is a non-empty list of
// {output, max_abs_reference, allowed}, each `output` a non-empty name given once, `max_abs_reference` a finite
// number >= 0, `allowed` exactly atol + rtol * max_abs_reference of the tolerance the output was judged by (the
// record's, or a half output's dtype_tolerances entry), and
// max_abs_reference <= allowed (else the tolerance could fail). Records without the key are not concerned.
#include <cmath>
#include <set>
#include <string>

#include "base/json_view.h"
#include "base/module_record_vocabulary.h"
#include "record/validate_module.h"

namespace nnx::validation {
namespace {

namespace vk = rf::vacuous_key;

void check_vacuous_entry(const JsonView& record, const JsonView& entry, const std::string& where,
                         const Tolerance& profile, std::set<std::string, std::less<>>& outputs, Problems& out) {
  if (!is_object_or_report(entry, where, out) || !exact_keys(entry, where, vk::kEntryKeys, out)) return;
  const JsonView output = entry[vk::kOutput];
  if (!output.is_string() || output.string().empty() || !outputs.emplace(output.string()).second) {
    out.push_back(at(where, vk::kOutput) + ": must be an output's name, each once, not " + text_of(output));
  }
  double largest = 0.0, allowed = 0.0;
  if (!json_number(entry[vk::kMaxAbsReference], largest) || !std::isfinite(largest) || largest < 0 ||
      !json_number(entry[vk::kAllowed], allowed)) {
    out.push_back(where + ": max_abs_reference and allowed must be finite numbers >= 0, not " +
                  text_of(entry[vk::kMaxAbsReference]) + " and " + text_of(entry[vk::kAllowed]));
    return;
  }
  const Tolerance used = tolerance_of_output(record, output.is_string() ? output.string() : "", profile);
  if (allowed != used.atol + used.rtol * largest) {
    out.push_back(at(where, vk::kAllowed) + ": " + text_of(entry[vk::kAllowed]) +
                  ", not atol + rtol * max_abs_reference of the record's tolerances");
  } else if (largest > allowed) {
    out.push_back(where + ": max_abs_reference is above allowed: an all-zero output would fail, the tolerance can");
  }
}

}  // namespace

void check_vacuous_tolerance(const JsonView& record, Problems& out) {
  const auto profile = record_tolerance(record);
  if (!profile) return;  // the tolerances' own rule names the problem
  std::set<std::string, std::less<>> outputs;
  for_each_parity_entry(record, vk::kVacuousTolerance, out, [&](const JsonView& entry, const std::string& where) {
    check_vacuous_entry(record, entry, where, *profile, outputs, out);
  });
}

}  // namespace nnx::validation
