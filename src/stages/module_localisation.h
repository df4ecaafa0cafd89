// What localisation (localisation.h) reads of a module or imported-file record: the model kind's own part.
// `can_localise`: a module record, or an imported file checked against a factory (a switch over the kind; the
// built-in network has no module to rebuild yet). `intermediates_request`: the worker's module_intermediates
// request (worker/PROTOCOL.md) for the record's module, without its case and folder: the factory as run's
// profile gave it (its digest the record's, so the worker imports the bytes the export imported) or as
// execute's torch reference checks it (module_reference.h factory_to_run), the exporter whose names the
// graph follows, the record's opset and dims.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "stages/stage_context.h"

namespace nnx {

bool can_localise(const Record& record);

nlohmann::json intermediates_request(const StageContext& context, const std::string& exporter);

}  // namespace nnx
