// validate_record (doc/record-format.md §6): every rule a record of nnx.export-conformance/1 must satisfy;
// for a record whose format is nnx.module-conformance/1, the rules of a module record (§10): its 19 keys,
// the same shared rules, and its module, inputs, dims, outputs, cases and stored tensors instead of config,
// dtype, v1's case shapes and the settings rule; for nnx.model-conformance/1 (§11), the module record's rules
// over its own key set (rf::kModelRecordKeys) and its `model` variant (validate_model_variant.cc). Records of
// either successor format also meet the parity detail's own checks where present: exact integer and bool
// outputs (validate_exact_outputs.cc), dtype-aware tolerances (validate_dtype_tolerances.cc) and a vacuous
// tolerance (validate_vacuous_tolerance.cc). A successor-format record of kind "built-in" (a tested profile's
// under other settings) is valid when it is the encoding of a valid v1 record under its own runtime section
// (validate_built_in.cc). Any other format is refused naming all three.
//
// `record_problems` returns every problem found, each naming what is wrong and where (e.g.
// "stages.check: ran after export did not pass"); it is empty exactly when the record is valid. It never
// throws. `validate_record` throws ConformanceError listing all problems in one message.
//
// Checked: the 17 top-level keys; strict JSON (no NaN/±Infinity, binary or discarded values, and the value
// survives a canonical write/read round trip unchanged — an in-memory object cannot hold duplicate keys);
// the format; the five stages, their statuses, failure classes and order; status/failure/level against the
// stages; every input case against the case table of §5 and the parity stage; model_state against the
// export stage; artifacts (keys, paths, duplicates, hashes, roles, sizes, the model entry and opset of a
// checked record); tolerances; config.weights_sha256; the shapes of source, exporter, opset, versions and
// runtime; the session options (a v1 record's exactly the brief's three; a module or successor-format
// record's within §11's session settings: level, intra-op threads, one inter-op thread, config entries);
// exporter name vs options; opset.requested; artifacts.model; and the
// settings rule of profile_rebuild.h. Not validated: contents of source, versions and stage details.
// Keys and vocabulary come from record_format.h; the summary check uses its derive_outcome, the rule the
// writer's finalize_record uses. The checks live in validate_record.cc, validate_stages.cc,
// validate_cases.cc and validate_artifacts.cc (validate_internal.h).
//
// The rules read a record where it lies, as a JsonView of its tape (base/json_view.h): a record already
// recorded flat (the Python front end's, python/python_json.h) is validated without building a value. That
// tape's writer has refused what is not strict JSON, so the JsonView overloads check every rule but that
// one; the json overloads check it on the value, then record it and apply the same rules.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_view.h"

namespace nnx {

using json = nlohmann::json;

std::vector<std::string> record_problems(const json& record);
std::vector<std::string> record_problems(const JsonView& record);

void validate_record(const json& record);
void validate_record(const JsonView& record);

}  // namespace nnx
