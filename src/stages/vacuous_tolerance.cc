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
  // An all-zero output against the reference, a chunk at a time from one static block of zeros: the same
  // rule as compare_to_tolerance over the whole output, without allocating an output's worth of zeros per case.
  static constexpr std::size_t kChunk = 4096;
  static const std::vector<double> zeros(kChunk, 0.0);
  for (std::size_t at = 0; it->vacuous && at < reference.size(); at += kChunk) {
    const auto part = reference.subspan(at, std::min(kChunk, reference.size() - at));
    it->vacuous = compare_to_tolerance(std::span(zeros).first(part.size()), part, tolerance).within;
  }
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
