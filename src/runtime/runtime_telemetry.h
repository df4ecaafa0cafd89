// ONNX Runtime's own telemetry, kept off in every process of ours that loads the library
// (doc/architecture.md, "Privacy").
//
// From about 1.2x on, Linux builds of ONNX Runtime carry a 1DS uploader (core/platform/posix/telemetry.cc)
// that the library creates with its first environment: it persists a device id under the user's home and,
// after a delay, resolves and posts to Microsoft's event collector. DisableTelemetryEvents() only stops
// session events; the uploader itself stays live and still sends its process-info event. What keeps it
// from ever starting is a variable the library reads when that first environment is made:
// ORT_DISABLE_TELEMETRY=1 (1.30's spelling) or ORT_TELEMETRY_DISABLED=1 (later sources' spelling).
//
// `turn_off_runtime_telemetry` sets both in this process, overwriting whatever the user's environment held
// (a run must send nothing, so no setting turns it back on). It is called before the library is opened;
// the worker's environment gets the same variables (`runtime_telemetry_off_variables`).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nnx {

std::vector<std::pair<std::string, std::string>> runtime_telemetry_off_variables();

// Idempotent, and writes only a variable that differs (so a second call, e.g. from a run's threads, only
// reads); call before dlopen of libonnxruntime and before other threads start (app/run_profiles.cc).
void turn_off_runtime_telemetry();

}  // namespace nnx
