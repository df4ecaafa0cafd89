// The one `rejudge` sequence every front end calls (doc/rejudge.md; the command line's `rejudge`, Python's
// nnx.rejudge): refuses, before anything is read, an output path that breaks the output-path rule
// (artifacts/output_paths.h: the document itself, a folder) or cannot be written; reads the document's bytes
// (a report, one record or a runtime matrix: a matrix's records are every runtime's, read strictly by
// matrix_from_json, in version order), their sha256 and the kept outputs beside it that must belong to them
// (stages/kept_outputs.h); re-judges (app/rejudge.h) under `rtol`/`atol` (each the record's own when not
// given) and writes the nnx.rejudged/1 document atomically to `output` when given. Refusals throw: a document
// that is none of ours or whose records do not validate, kept outputs changed or of another document
// (ConformanceError), no kept outputs or a bad output path (UsageError).
#pragma once

#include <filesystem>
#include <optional>

#include "app/rejudge.h"

namespace nnx::matrix {

RejudgeOutcome rejudge_document(const std::filesystem::path& document, std::optional<double> rtol,
                                std::optional<double> atol, const std::optional<std::filesystem::path>& output);

}  // namespace nnx::matrix
