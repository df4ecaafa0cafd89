// The nearest known name to a mistyped one (nearest_name.h).
#include "base/nearest_name.h"

#include <algorithm>

namespace nnx {
namespace {

// Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours (the optimal
// string alignment distance: "--proflie" is one edit from "--profile"), three rows.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

std::optional<std::string> nearest_name(std::string_view typed, const std::vector<std::string>& known) {
  std::optional<std::string> best;
  std::size_t best_distance = 3;  // at most two edits
  for (const std::string& name : known) {
    const std::size_t distance = edit_distance(typed, name);
    if (distance < best_distance && distance * 2 < typed.size()) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known) {
  const auto nearest = nearest_name(typed, known);
  return nearest ? "; did you mean \"" + *nearest + "\"?" : std::string();
}

}  // namespace nnx
