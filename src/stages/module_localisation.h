// What localisation (localisation.h) reads of a module or imported-file record: the model kind's own part.
// `values_from`: who computes the values ONNX Runtime's are compared with (a switch over the kind): PyTorch
// for a module record or an imported file checked against a factory (the module rebuilt), ONNX's reference
// evaluator for an imported file without one (a data-only record: no code of its author runs), nothing for
// the built-in network (no module to rebuild yet). `can_localise`: anything computes them. `intermediates_request`: the worker's module_intermediates
// request (worker/PROTOCOL.md) for the record's module, without its case and folder: the factory as run's
// profile gave it (its digest the record's, so the worker imports the bytes the export imported) or as
// execute's torch reference checks it (module_reference.h factory_to_run), the exporter whose names the
// graph follows, the record's opset and dims.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "stages/stage_context.h"

namespace nnx {

enum class ValuesFrom { nothing, pytorch, reference_evaluator };

ValuesFrom values_from(const Record& record);
inline bool can_localise(const Record& record) { return values_from(record) != ValuesFrom::nothing; }

nlohmann::json intermediates_request(const StageContext& context, const std::string& exporter);

}  // namespace nnx
