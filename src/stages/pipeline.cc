// The pipeline runner (stages.h). Each runtime stage (load, parity) runs under a RuntimeLogCapture
// (runtime/runtime_log.h): in a module or ONNX-file record (doc/record-format.md §10, §11) the runtime's
// log messages of the stage, if any, are kept in its detail as `runtime_log`, a list of strings (a last one
// counts the lines beyond the capture's limit) where that detail is an object; a tested profile's record
// (nnx.export-conformance/1) never gets them.
#include <string>
#include <vector>

#include "base/interrupt.h"
#include "runtime/runtime_log.h"
#include "stages/stages.h"

namespace nnx {
namespace {

// Whether a record of form `form` keeps ONNX Runtime's log text in a stage detail.
bool keeps_runtime_log(RecordForm form) {
  switch (form) {
    case RecordForm::brief:
      return false;  // the brief's record: its bytes never change
    case RecordForm::named_tensors:
      return true;
  }
  return false;
}

void keep_runtime_log(Record& record, Stage stage, const RuntimeLogCapture& capture) {
  json& detail = record.stage(stage).detail;
  if (!keeps_runtime_log(model_kind_facts(record.kind()).form) || capture.messages().empty() || !detail.is_object()) return;
  std::vector<std::string> lines = capture.messages();
  if (capture.dropped() > 0) lines.push_back(std::to_string(capture.dropped()) + " more runtime log lines not kept");
  detail[rf::detail_key::kRuntimeLog] = std::move(lines);
}

bool run_unit(StageContext& context, const StageUnit& unit) {
  if (stage_index(unit.stage) < stage_index(kFirstRuntimeStage)) return unit.run(context);
  const RuntimeLogCapture capture;
  const bool passed = unit.run(context);
  keep_runtime_log(context.record, unit.stage, capture);
  return passed;
}

}  // namespace

bool run_stages(StageContext& context, std::span<const StageUnit> units, const StageHook& hook) {
  for (const StageUnit& unit : units) {
    throw_if_interrupted();  // after SIGINT/SIGTERM no further stage starts
    if (hook.before) hook.before(unit.stage);
    const StageHook::Clock::time_point start = StageHook::Clock::now();
    const bool passed = run_unit(context, unit);
    if (hook.after) hook.after(unit.stage, start, StageHook::Clock::now());
    if (!passed) return false;
  }
  return true;
}

}  // namespace nnx
