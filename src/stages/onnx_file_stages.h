// The stages of an ONNX-file profile that differ from every other kind's (doc/record-format.md §11;
// stages.h dispatches to them on Profile::kind()): no worker runs for it.
//
// Import (the export stage): model.onnx is copied into the profile's folder from the bytes read once, and
// hashed from those very bytes (the sha256 recorded is that of what was written); each external-data file it
// references (the location must stay inside the model's folder, no symlink on the way:
// profile/onnx_file_spec.h imported_external_file) is copied beside it; each data set's inputs and outputs are
// read again as TensorProto files (hostile bytes refused), named after the graph's value they are bound to
// and stored in the profile folder's test-data layout (artifacts/layout.h), the outputs being the case's
// reference (parity compares with ReferenceKind::stored). A data set that is no longer what the profile read
// (another dtype or shape) fails the stage. Detail: {imported: {source, sha256, bytes, external, producer,
// data_sets}, warnings: []}. Failure: export-error naming what could not be read or written.
//
// Check: the copy is read with the tool's own model reader (onnx_file/onnx_model_file.h: it parses, every
// external location is served from the folder) instead of onnx.checker (no Python); the manifest is built
// (artifacts.h) and its sha256 of model.onnx must be the import's, else checker-error (the copy changed
// between its write and its check). Detail as the worker's check gives it, plus `checker: "nnx-reader"`.
#pragma once

#include "stages/stage_context.h"

namespace nnx {

bool run_onnx_import_stage(StageContext& context);      // stages/onnx_import.cc
bool run_onnx_file_check_stage(StageContext& context);  // stages/onnx_file_check.cc

}  // namespace nnx
