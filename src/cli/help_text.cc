#include "cli/help_text.h"

#include <algorithm>

#include "base/build_info.h"
#include "base/error.h"
#include "base/failure.h"
#include "base/record_vocabulary.h"
#include "profile/profile.h"

namespace nnx::cli {
namespace {

// Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours (the optimal
// string alignment distance: "--proflie" is one edit from "--profile"), three rows.
std::size_t edit_distance(const std::string& a, const std::string& b) {
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

std::string version_line() {
  std::string records;
  for (std::string_view format : kRecordFormats) records += (records.empty() ? "" : ", ") + std::string(format);
  return "nnx-conformance " + build_version() + " (records " + records + "; runtime matrices " + kMatrixFormat + ")";
}

std::string help_footer() {
  std::string out = "Exit codes:\n  " + std::to_string(kExitPassed) + "   every profile passed (or the document is valid)\n";
  for (FailureClass failure : kFailureClasses) {
    out += "  " + std::to_string(exit_code(failure)) + "  " + std::string(failure_name(failure)) + " (stage " +
           std::string(stage_name(failure_stage(failure))) + ")\n";
  }
  out += "  " + std::to_string(kExitError) + "   an error: a refused record or report, a signature that does not hold (--key), an unreadable file\n";
  out += "  " + std::to_string(kExitUsage) + "   a usage error: an unknown flag, profile or path\n";
  out += "  128+N  stopped by signal N (SIGINT 130, SIGTERM 143); no report written\n";
  out += "Tested profiles:";
  for (const Profile& profile : tested_profiles()) out += "\n  " + profile.name;
  return out;
}

std::optional<std::string> nearest_name(const std::string& typed, const std::vector<std::string>& known) {
  std::optional<std::string> best;
  std::size_t best_distance = 3;  // at most two edits
  const std::string bare = typed.substr(0, typed.find('='));
  for (const std::string& flag : known) {
    const std::size_t distance = edit_distance(bare, flag);
    if (distance < best_distance && distance * 2 < bare.size()) {
      best = flag;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace nnx::cli
