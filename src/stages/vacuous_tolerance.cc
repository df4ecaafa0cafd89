// A tolerance that cannot fail (vacuous_tolerance.h).
#include "stages/vacuous_tolerance.h"

#include <algorithm>
#include <cmath>

#include "base/module_record_vocabulary.h"

namespace nnx {

void VacuousTolerance::observe(const std::string& output, std::span<const double> reference,
                               const Tolerance& tolerance) {
  auto it = std::find_if(seen_.begin(), seen_.end(), [&](const Seen& s) { return s.output == output; });
  if (it == seen_.end()) it = seen_.insert(seen_.end(), Seen{output, true, 0.0, tolerance});
  const std::vector<double> zeros(reference.size(), 0.0);
  it->vacuous = it->vacuous && compare_to_tolerance(zeros, reference, tolerance).within;
  for (const double v : reference) it->largest = std::max(it->largest, std::fabs(v));
}

nlohmann::json VacuousTolerance::to_json() const {
  namespace vk = rf::vacuous_key;
  nlohmann::json entries = nlohmann::json::array();
  for (const Seen& s : seen_) {
    if (!s.vacuous) continue;
    entries.push_back({{vk::kOutput, s.output},
                       {vk::kMaxAbsReference, s.largest},
                       {vk::kAllowed, s.tolerance.atol + s.tolerance.rtol * s.largest}});
  }
  return entries.empty() ? nlohmann::json() : entries;
}

}  // namespace nnx
