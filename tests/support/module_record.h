// Test support (tests only): a module record (nnx.module-conformance/1, doc/record-format.md §10) of an image
// model, built as a typed Record the way a run fills one: the stages before `last` pass and so does `last`;
// later stages do not run. Its module digests, class and case outputs appear once the export ran, its
// stored tensors and opset once check passed, its case outcomes once parity ran (every case passes: the
// three batches match, the three refusal cases are rejected), then finalize.
//
//   inputs [{image, ["batch", 3, 64, 64], float32, range null}], dims {batch: [2, 1, 3]}, outputs [logits]
//   cases  batch-2, batch-1, batch-3 (match, k = 0, 1, 2); image-axis1-4, image-axis2-65, image-axis3-65
#pragma once

#include <nlohmann/json.hpp>

#include "record/record.h"

namespace nnx::test_support {

Record module_record(Stage last = Stage::parity);
// The same as JSON (module_record(last).to_json()).
nlohmann::json module_record_json(Stage last = Stage::parity);

}  // namespace nnx::test_support
