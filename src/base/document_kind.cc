#include "base/document_kind.h"

#include "base/json_fields.h"
#include "base/model_record_vocabulary.h"

namespace nnx {

std::optional<DocumentKind> document_kind_of(const nlohmann::json& document) {
  if (!document.is_object()) return std::nullopt;
  const auto format = document.find(rf::kFormat);
  const std::string id = format != document.end() && format->is_string() ? format->get<std::string>() : "";
  if (id == kMatrixFormat) return DocumentKind::matrix;
  if (document.contains(rf::report_key::kProfiles)) return DocumentKind::report;
  if (id == kModuleFormat) return DocumentKind::module_record;
  if (id == kModelFormat) return DocumentKind::model_record;
  if (id == kFormat || (document.contains(rf::kProfile) && document.contains(rf::kStages))) return DocumentKind::record;
  return std::nullopt;
}

std::string document_kind_text(DocumentKind kind) {
  switch (kind) {
    case DocumentKind::report: return "a report (" + std::string(kFormat) + ")";
    case DocumentKind::record: return "a record (" + std::string(kFormat) + ")";
    case DocumentKind::module_record: return "a module record (" + std::string(kModuleFormat) + ")";
    case DocumentKind::model_record:
      return "a model record (" + std::string(kModelFormat) + ", an imported ONNX file)";
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
