// Where localisation's reference values come from (localisation.h step 1; doc/localisation.md, "PyTorch's
// values" and "Whose values"): the worker's answer to module_intermediates or reference_intermediates
// (PyTorch's values, the module or network rebuilt) or graph_intermediates (ONNX's reference evaluator's, for a
// data-only record), chosen by module_localisation.h's values_from, read into ReferenceValues whose files lie
// in the scratch folder; for a matrix's parting (StageContext::other_runtime_values), the index the newest
// release's dump wrote in the same shape (localisation_dump.h), read by the same reader.
// ConformanceError saying why not (the worker's import error or exception, a file outside the folder).
#pragma once

#include "stages/localisation_internal.h"
#include "stages/stage_context.h"

namespace nnx::localisation {

ReferenceValues reference_values(StageContext& context, const RecordCase& c, const Subject& subject,
                                 const std::filesystem::path& folder);

}  // namespace nnx::localisation
