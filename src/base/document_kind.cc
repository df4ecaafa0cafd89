#include "base/document_kind.h"

#include "base/built_in_model_record.h"
#include "base/json_fields.h"
#include "base/model_kind.h"
#include "base/record_vocabulary.h"

namespace nnx {

std::optional<DocumentKind> document_kind_of(const nlohmann::json& document) {
  if (!document.is_object()) return std::nullopt;
  const auto format = document.find(rf::kFormat);
  const std::string id = format != document.end() && format->is_string() ? format->get<std::string>() : "";
  if (id == kMatrixFormat) return DocumentKind::matrix;
  if (document.contains(rf::report_key::kProfiles)) return DocumentKind::report;
  if (model_kind_of_format(id) || (document.contains(rf::kProfile) && document.contains(rf::kStages))) {
    return DocumentKind::record;
  }
  return std::nullopt;
}

namespace {

// A record's words, by its format's model kind (a record beside another format reads as v1's).
std::string record_text(const nlohmann::json& document) {
  if (is_built_in_model_record(document)) {  // §11's kind "built-in": the tested network under other settings
    return "a record (" + std::string(kModelFormat) + ", the built-in network under other session settings)";
  }
  const auto format = document.find(rf::kFormat);
  const std::string id = format != document.end() && format->is_string() ? format->get<std::string>() : "";
  const ModelKindFacts& kind = record_kind_facts(id);
  return std::string(kind.record_noun) + " (" + std::string(kind.format) +
         (kind.record_note.empty() ? "" : ", " + std::string(kind.record_note)) + ")";
}

}  // namespace

std::string document_kind_text(const nlohmann::json& document) {
  const std::optional<DocumentKind> kind = document_kind_of(document);
  if (!kind) return not_a_document_text(document);
  switch (*kind) {
    case DocumentKind::report: return "a report (" + std::string(kFormat) + ")";
    case DocumentKind::record: return record_text(document);
    case DocumentKind::matrix: return "a runtime matrix (" + std::string(kMatrixFormat) + ")";
  }
  return "";
}

std::string not_a_document_text(const nlohmann::json& document) {
  std::string held = "a JSON " + json_type_name(document);
  if (document.is_object()) {
    const auto format = document.find(rf::kFormat);
    held = "an object";
    if (format != document.end()) held += " with format " + format->dump();
    held += std::string(" and neither \"") + rf::report_key::kProfiles + "\" nor \"" + rf::kProfile + "\" and \"" +
            rf::kStages + "\"";
  }
  return "not a document nnx-conformance writes (a report, a record or a runtime matrix): it is " + held;
}

}  // namespace nnx
