#include "matrix/document_check.h"

#include "base/error.h"
#include "base/failure.h"
#include "base/json_strict.h"
#include "base/matrix_vocabulary.h"
#include "base/record_vocabulary.h"
#include "matrix/matrix_document.h"

namespace nnx::matrix {

bool FileCheck::ok() const { return kind == DocumentKind::matrix ? matrix_problems.empty() : check.ok(); }

int FileCheck::exit_code() const {
  if (kind == DocumentKind::matrix) return matrix_problems.empty() ? kExitPassed : kExitError;
  return check.exit_code();
}

FileCheck check_document_file(const std::filesystem::path& file, const std::filesystem::path* root) {
  FileCheck out;
  json document = read_strict_json_file(file.string());
  if (document_kind_of(document) == DocumentKind::matrix && root == nullptr) {  // verify: records_named refuses it
    out.kind = DocumentKind::matrix;
    out.kind_text = document_kind_text(document);
    out.matrix_problems = matrix_problems(document);
    if (out.matrix_problems.empty()) {
      for (const auto& runtime : document[rf::matrix_key::kRuntimes]) {
        out.records += runtime[rf::matrix_runtime_key::kRecords].size();
      }
    }
    return out;
  }
  const std::vector<json> records = records_named(file, document);  // names the file when it is no document
  out.kind = *document_kind_of(document);
  out.kind_text = document_kind_text(document);
  out.records = records.size();
  out.check = check_records(records, root);
  return out;
}

}  // namespace nnx::matrix
