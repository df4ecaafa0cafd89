// The pipeline runner (stages.h).
#include "base/interrupt.h"
#include "stages/stages.h"

namespace nnx {

bool run_stages(StageContext& context, std::span<const StageUnit> units, const StageHook& hook) {
  for (const StageUnit& unit : units) {
    throw_if_interrupted();  // after SIGINT/SIGTERM no further stage starts
    if (hook.before) hook.before(unit.stage);
    const StageHook::Clock::time_point start = StageHook::Clock::now();
    const bool passed = unit.run(context);
    if (hook.after) hook.after(unit.stage, start, StageHook::Clock::now());
    if (!passed) return false;
  }
  return true;
}

}  // namespace nnx
