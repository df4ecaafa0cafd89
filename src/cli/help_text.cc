#include "cli/help_text.h"

#include "base/build_info.h"
#include "base/error.h"
#include "base/failure.h"
#include "base/nearest_name.h"
#include "base/record_vocabulary.h"
#include "profile/profile.h"

namespace nnx::cli {

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
  return nnx::nearest_name(std::string_view(typed).substr(0, typed.find('=')), known);  // base/nearest_name.h
}

}  // namespace nnx::cli
