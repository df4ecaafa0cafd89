// The detail of a stage the exporter worker failed (it could not answer, answered late or malformed:
// worker/worker_error.h), the one rule of the export and check stages: "exporter worker: <what>" and the
// tail of the worker's log; the worker is stopped, so that whatever asks next starts a fresh one.
#pragma once

#include <nlohmann/json.hpp>

#include "worker/exporter_client.h"

namespace nnx {

nlohmann::json worker_failure_detail(ExporterClient& exporter, const WorkerError& error);

}  // namespace nnx
