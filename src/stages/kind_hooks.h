// The stages' one dispatch on the model kind (doc/architecture.md, "Adding a model kind"): what a kind runs
// for the stages whose work differs by kind, in one table chosen by one switch the compiler checks
// (kind_stages, stages/kind_hooks.cc). The stages (export.cc, check.cc, parity.cc) ask the table and tell no
// kind apart; what a kind merely is (its record form, a native net) is base/model_kind.h's.
//   feed-forward  exported and checked by the worker; feedfwd_export.cc, feedfwd_parity.cc
//   module        exported and checked by the worker; module_export.cc, module_parity.cc
//   ONNX file     imported and checked without a worker (onnx_file_stages.h); with a factory, the worker
//                 computes its reference against the copy (imported_file_export, module_export.cc);
//                 module_parity.cc
#pragma once

#include <memory>

#include "base/model_kind.h"
#include "stages/export_kind.h"
#include "stages/parity_kind.h"
#include "stages/stage_context.h"

namespace nnx {

struct KindStages {
  bool (*export_stage)(StageContext&);                          // the export stage's work for the kind
  bool (*check_stage)(StageContext&);                           // the check stage's
  std::unique_ptr<ExportKind> (*export_hooks)(StageContext&);   // what the worker's export asks of it
  std::unique_ptr<ParityKind> (*parity_hooks)(StageContext&);   // what the one parity path asks of it
};

const KindStages& kind_stages(ModelKind kind);

}  // namespace nnx
