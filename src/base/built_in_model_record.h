// The built-in net's record in the successor format (doc/record-format.md §11, kind "built-in"): what a tested
// profile's record becomes when it is run or executed with other session settings or another execution
// provider than the brief's (a runtime matrix's cell of other settings, `execute --intra-op-threads 2`). The
// evidence is the v1 record's (§5: the same stages, cases, rules and level), in §11's encoding: its 19 keys,
// `model` {kind: "built-in", config, dtype} where v1 has `config` and `dtype`, the one input and output named
// as the exporter options name them (`features` ["batch", input_dim] → `logits`), `dims` {batch: [the export
// batch, then every other batch of its cases in case order]}, and each case's `dims`, `inputs` and `outputs`
// ({name, dtype, shape}; outputs null for a case expected to be refused) where v1's case has `shape`. No case
// tensor is stored: the inputs are §2's draws from each case's seed and the reference is the native forward
// rebuilt from the config, as for the v1 record; the runtime section says the settings in full.
//
// The encoding both ways, on JSON, like LevelDB's VersionEdit: `built_in_model_record(brief)` encodes a record
// of the v1 shape (its runtime as run); `brief_view(record)` decodes one into the v1 record it states, with the
// brief's session and provider (the profile's own: the rules of §5 then apply to it unchanged). Both read any
// JSON without throwing (a hostile record decodes into something the rules then refuse): the validator takes
// a record as valid only when it is the encoding of its view, under its own runtime section, and the view is
// a valid v1 record (record/validate_record.h).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "base/model_kind.h"

namespace nnx {

// Whether `record` claims to be one: format nnx.model-conformance/1 and model.kind "built-in".
bool is_built_in_model_record(const nlohmann::json& record);

// The successor record of `brief`, a record of v1's 17 keys (its format, session and provider whatever they
// are): the same evidence in §11's 19 keys, format nnx.model-conformance/1.
nlohmann::json built_in_model_record(const nlohmann::json& brief);

// The v1 record a built-in model record states: v1's 17 keys, format nnx.export-conformance/1, its runtime's
// session and provider the brief's (ORT_ENABLE_ALL, one thread each, CPUExecutionProvider, no provider options).
nlohmann::json brief_view(const nlohmann::json& record);

// The one reading of a record's model kind from its JSON: its format's (model_kind_of_format), but for
// nnx.model-conformance/1, whose model.kind says it ("built-in": the built-in net; else an ONNX file). nullopt
// for a format no kind has.
std::optional<ModelKind> model_kind_of_record(const nlohmann::json& record);

}  // namespace nnx
