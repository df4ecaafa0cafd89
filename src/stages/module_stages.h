// The module profile's side of the export stage (doc/record-format.md §10; stages.h): the
// stage unit of stages.h calls it when the profile is a module's, so the pipelines, the stage
// order and the stage loop stay one (stages/pipeline.cc).
#pragma once
#include "stages/stage_context.h"

namespace nnx {

bool run_module_export_stage(StageContext& context);  // stages/module_export.cc

}  // namespace nnx
