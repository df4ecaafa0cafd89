// The module profile's side of the export and parity stages (doc/record-format.md §10; stages.h): the
// stage units of stages.h call these when the profile or record is a module's, so the pipelines, the stage
// order and the stage loop stay one (stages/pipeline.cc).
#pragma once
#include "stages/stage_context.h"

namespace nnx {

bool run_module_export_stage(StageContext& context);  // stages/module_export.cc
bool run_module_parity_stage(StageContext& context);  // stages/module_parity.cc

}  // namespace nnx
