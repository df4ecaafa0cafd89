#include "matrix/rejudge_document.h"

#include <string>
#include <vector>

#include "app/execute_record.h"
#include "artifacts/output_paths.h"
#include "base/atomic_file.h"
#include "base/document_kind.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/sha256.h"
#include "matrix/matrix_document.h"

namespace nnx::matrix {
namespace {

// The records re-judged, in order: a matrix's every runtime's (read strictly), else the record or report's.
std::vector<json> records_of_document(const std::filesystem::path& file, const json& document) {
  try {
    if (document_kind_of(document) == DocumentKind::matrix) {
      std::vector<json> records;
      for (auto& cell : matrix_from_json(document).cells) {
        for (auto& record : cell.records) records.push_back(std::move(record));
      }
      return records;
    }
    return records_of(document);
  } catch (const ConformanceError& e) {
    throw ConformanceError(file.string() + ": " + e.what());
  }
}

}  // namespace

RejudgeOutcome rejudge_document(const std::filesystem::path& document, std::optional<double> rtol,
                                std::optional<double> atol, const std::optional<std::filesystem::path>& output) {
  if (output) {
    check_output_paths({{{"the output path", *output}}, {{"the document", document}}, {}});
    require_writable_file_path(*output, "the output path");
  }
  for (const auto& [name, value] : {std::pair{"rtol", rtol}, std::pair{"atol", atol}}) {
    if (value && !(*value >= 0.0)) throw UsageError(std::string(name) + " must be a number >= 0, not " + std::to_string(*value));
  }
  const std::string bytes = read_file_bytes(document, kMaxJsonTextBytes, "the JSON text limit", ErrorKind::usage);
  const json parsed = parse_strict_json(bytes);
  const std::string sha256 = sha256_hex(bytes);
  RejudgeRequest request;
  request.records = records_of_document(document, parsed);
  request.kept = read_kept_outputs(kept_outputs_folder(document), sha256);
  request.rtol = rtol;
  request.atol = atol;
  request.document = json{{"path", document.string()}, {"sha256", sha256}};
  RejudgeOutcome outcome = rejudge(request);
  if (output) write_file_atomically(*output, dumps_pretty(outcome.document) + "\n");
  return outcome;
}

}  // namespace nnx::matrix
