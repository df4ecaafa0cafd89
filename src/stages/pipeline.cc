// The pipeline runner (stages.h).
#include "base/interrupt.h"
#include "stages/stages.h"

namespace nnx {

void run_stages(StageContext& context, std::span<const StageUnit> units) {
  for (const StageUnit& unit : units) {
    throw_if_interrupted();  // after SIGINT/SIGTERM no further stage starts
    if (!unit.run(context)) return;
  }
}

void reset_input_cases(nlohmann::json& record) {
  for (auto& c : record["input_cases"]) {
    c["outcome"] = nullptr;
    c["passed"] = false;
    c["failure"] = nullptr;
    c["max_abs_error"] = nullptr;
    c["max_rel_error"] = nullptr;
    c["detail"] = nullptr;
  }
}

}  // namespace nnx
