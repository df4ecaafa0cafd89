// Which document nnx-conformance wrote (doc/record-format.md §5, §8, §10, §11; doc/runtime-matrix.md), told by
// its keys and format id (base/record_vocabulary.h): a runtime matrix (format nnx.runtime-matrix/1), a report
// (it holds "profiles"), a record (a record format's id — nnx.export-conformance/1, nnx.module-conformance/1,
// nnx.model-conformance/1 — or "profile" and "stages" beside another format; its model kind is its format's,
// model_kind_of_format, or for nnx.model-conformance/1 its model.kind's (a "built-in" one is worded as the
// built-in network under other session settings: base/built_in_model_record.h), and only the words differ). The one recognition rule:
// `validate` says which document it got, and the record verbs (app/execute_record.h records_of) tell a
// report from one record and refuse a matrix or anything else by its name.
// Whether the document then follows its kind's rules is the validators' business.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace nnx {

enum class DocumentKind { report, record, matrix };

// nullopt for a value that is none of them (not an object, or lacking the keys above).
std::optional<DocumentKind> document_kind_of(const nlohmann::json& document);
// What `document` is, in words: "a report (nnx.export-conformance/1)", "a record (nnx.export-conformance/1)",
// "a module record (nnx.module-conformance/1)", "a model record (nnx.model-conformance/1, an imported ONNX
// file)", "a runtime matrix (nnx.runtime-matrix/1)"; not_a_document_text for anything else.
std::string document_kind_text(const nlohmann::json& document);
// Why `document` is none of them, naming what it holds ("... it is a JSON array", "... it is an object with
// format \"x\" and neither \"profiles\" nor \"profile\" and \"stages\"").
std::string not_a_document_text(const nlohmann::json& document);

}  // namespace nnx
