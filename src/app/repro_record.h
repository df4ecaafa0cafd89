// A localisation's repro as a record of its own (doc/localisation.md, "The repro"): the cut the localisation
// wrote (model.onnx, test_data_set_0 with the reference's inputs and expected output) is a profile of the "your own
// ONNX file" kind, written beside it as profile.json ({name: "<profile>-repro", onnx: "model.onnx", data: ".",
// rtol: 0, atol: the departure test's allowed error, so the record fails exactly when the value departs}),
// run through the one pipeline into report.json and artifacts/ in the same folder. `execute
// repro/report.json repro/artifacts` then replays it with no Python; onnx_test_runner reads model.onnx and
// test_data_set_0 as they are.
//
// `localise_record` is what run and execute call after parity: localisation (stages/localisation.h), then the
// repro's record, then, under run, every file of the repro folder listed in the record (role repro) — but for
// a tested profile's (v1) record, whose repro lives beside it (stages/module_localisation.h repro_place) and
// is never listed. A repro whose record cannot be made says why in the localisation's `repro.record_error`;
// nothing else changes.
#pragma once

#include <filesystem>
#include <optional>

#include "app/run_options.h"
#include "stages/stage_context.h"

namespace nnx {

void localise_record(StageContext& context, LocaliseWhen when, const LocaliseLimits& limits,
                     const std::optional<std::filesystem::path>& repro_beside, const RunOptions& repro_run);

}  // namespace nnx
