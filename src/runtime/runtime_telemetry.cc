#include "runtime/runtime_telemetry.h"

#include <cstdlib>

namespace nnx {

std::vector<std::pair<std::string, std::string>> runtime_telemetry_off_variables() {
  return {{"ORT_DISABLE_TELEMETRY", "1"}, {"ORT_TELEMETRY_DISABLED", "1"}};
}

void turn_off_runtime_telemetry() {
  for (const auto& [name, value] : runtime_telemetry_off_variables()) ::setenv(name.c_str(), value.c_str(), 1);
}

}  // namespace nnx
