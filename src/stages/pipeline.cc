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

}  // namespace nnx
