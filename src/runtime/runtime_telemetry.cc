#include "runtime/runtime_telemetry.h"

#include <cstdlib>

namespace nnx {

std::vector<std::pair<std::string, std::string>> runtime_telemetry_off_variables() {
  return {{"ORT_DISABLE_TELEMETRY", "1"}, {"ORT_TELEMETRY_DISABLED", "1"}};
}

void turn_off_runtime_telemetry() {
  // Only what differs is written: once set (a run sets them before its --jobs threads start), later calls
  // only read, since setenv must not run beside threads reading the environment.
  for (const auto& [name, value] : runtime_telemetry_off_variables()) {
    const char* now = std::getenv(name.c_str());
    if (now == nullptr || value != now) ::setenv(name.c_str(), value.c_str(), 1);
  }
}

}  // namespace nnx
