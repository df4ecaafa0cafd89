// Test tool: runs ONE profile given as JSON text (the product's command line takes custom profiles only
// from a file, `run --profile-file`) with app/run_profile.h and prints the record. Exit code as
// `nnx-conformance run`.
//   nnx_run_profile PROFILE_JSON ARTIFACT_ROOT
#include <iostream>

#include "base/failure.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "profile/profile.h"
#include "record/report.h"
#include "app/run_profile.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: nnx_run_profile PROFILE_JSON ARTIFACT_ROOT\n";
    return nnx::kExitUsage;
  }
  try {
    std::vector<std::string> problems;
    const nnx::Profile profile = nnx::profile_from_json(nnx::parse_strict_json(argv[1]), problems);
    if (!problems.empty()) throw nnx::ConformanceError(problems.front());
    const nnx::json record = nnx::run_profile(profile, argv[2]);
    std::cout << nnx::dumps_pretty(record) << "\n";
    return nnx::exit_code_for({record});
  } catch (const nnx::UsageError& e) {
    std::cerr << "usage error: " << e.what() << "\n";
    return nnx::kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return nnx::kExitError;
  }
}
