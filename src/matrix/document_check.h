// validate and verify of any document the tool writes (doc/record-format.md §6, §7 "One verdict per
// problem"; doc/runtime-matrix.md): the one sequence of the command line's `validate`/`verify`
// (cli/record_commands.cc) and the C++ API's (include/nnx/conformance.h), each printing or returning what it
// finds in its own words. It lives here, above app/, because a runtime matrix is this layer's document.
//
// `check_document_file(file, root)` reads the file, tells which document it is (base/document_kind.h) and
// checks it as one: a report's or record's records by app/check_document.h `check_records` (with a root,
// their artifacts verified too); a runtime matrix by `matrix_problems` (matrix_document.h). Verify refuses a
// matrix (UsageError): its records are a report's, verified from that report. A file that cannot be read,
// is not strict JSON, is a malformed report or no document of ours throws, naming the file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "app/check_document.h"
#include "base/document_kind.h"

namespace nnx::matrix {

struct FileCheck {
  DocumentKind kind = DocumentKind::record;
  std::string kind_text;                     // what the document is, in words (document_kind_text)
  std::size_t records = 0;                   // a report's, the record, or every runtime's of a matrix
  DocumentCheck check;                       // a report's or a record's records
  std::vector<std::string> matrix_problems;  // a matrix's

  bool ok() const;
  // 0 when ok; a matrix's problems 1; else the records' (DocumentCheck::exit_code: 1 or a failure class's).
  int exit_code() const;
};

FileCheck check_document_file(const std::filesystem::path& file, const std::filesystem::path* root = nullptr);

}  // namespace nnx::matrix
