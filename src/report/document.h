// What the renderers read (doc/cli.md, "Looking at the evidence"): a conformance report
// ({format, profiles, status}, doc/record-format.md §8), one record (nnx.export-conformance/1, or a module
// record nnx.module-conformance/1, §10: shown by its module's factory and its cases' inputs) or a runtime
// matrix (nnx.runtime-matrix/1: {report, runtimes: [{version, library_sha256, status, records}], drift}).
// Only the keys the pages show are read, each checked for its type; anything else is refused with
// ConformanceError naming the key. The values are never recomputed: a page shows the record's numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/matrix_vocabulary.h"
#include "base/model_kind.h"
#include "base/model_record_vocabulary.h"

#include "base/record_vocabulary.h"

namespace nnx::report {

using json = nlohmann::json;

// The parts of the record vocabulary (base/record_vocabulary.h) the pages read, by the part they key.
namespace case_key = rf::case_key;
namespace stage_key = rf::stage_key;
namespace artifacts_key = rf::artifacts_key;
namespace file_key = rf::file_key;
namespace tolerance_key = rf::tolerance_key;
namespace drift_key = rf::drift_key;
namespace triangulation_key = rf::triangulation_key;

enum class DocumentKind { report, record, matrix };

DocumentKind document_kind(const json& document);
// The document's records: the report's profiles, the record itself, or every matrix cell's records.
std::vector<json> document_records(const json& document);

// One runtime of a matrix (a cell): its name (its `cell` when it has settings, else its version), library
// sha256, status and records.
struct MatrixRuntime {
  std::string version;
  std::string library_sha256;
  std::string status;
  std::vector<json> records;
};
std::vector<MatrixRuntime> matrix_runtimes(const json& matrix);

// One profile as a page lists it: the prefix its heading has ("" in a report or record, the runtime in a
// matrix), its record, and the records it sits among (its runtime's in a matrix, else the document's), in
// which base/failure_diagnosis.h looks for the other exporter's verdict on the same module.
struct PageRecord {
  std::string prefix;
  json record;
  std::vector<json> siblings;
};
// Every record of the document in its order; `matrix_prefix` makes a matrix cell's prefix of its version.
std::vector<PageRecord> page_records(const json& document, std::string (*matrix_prefix)(const std::string& version));

// One case of a matrix's drift (doc/runtime-matrix.md, "Drift"): the largest difference between any two
// runtimes, the pair that gives it, and the runtimes beyond the profile's tolerance of the newest.
struct DriftRow {
  std::string profile;
  std::string case_name;
  std::size_t runtimes = 0;
  json max_abs_difference;  // number (null when fewer than two runtimes computed the case)
  json max_ulps;
  std::string pair;                 // "A ↔ B", "" when none
  std::vector<std::string> beyond;  // versions not within tolerance of the newest
};
// The matrix's drift rows in the document's order; none when the matrix has no drift.
std::vector<DriftRow> matrix_drift(const json& matrix);

// One entry of a matrix's drift per axis (doc/runtime-matrix.md, "Axes"): a cell of other settings against its
// release's cell with the brief's settings, on one profile.
struct AxisRow {
  std::string cell;     // "1.30.0 (ORT_DISABLE_ALL)"
  std::string against;  // "1.30.0"
  std::string profile;
  std::string case_name;    // the case that differs most ("" when none was comparable)
  json max_abs_difference;  // number, or null when not comparable
  json max_ulps;
  bool within_tolerance = false;
};
// The matrix's drift.axes rows in the document's order; none when it has no axes.
std::vector<AxisRow> matrix_axes(const json& matrix);

// Reading one record, tolerant of a failing record's nulls.
std::string text_of(const json& record, const char* key);                       // "" when absent or null
const json& stage_of(const json& record, const char* stage);                    // null json when absent
std::string stage_status(const json& record, const char* stage);               // "not_run" when absent
// The parity triangulation entry of a case (stages.parity.detail.triangulation[i] with "case" == name), or null.
const json& triangulation_of(const json& record, const std::string& case_name);
// The case's margin (error ÷ allowed error) when triangulated: a number, or null (infinite margin / none).
const json& case_margin(const json& record, const std::string& case_name);

// What its kind is (base/model_kind.h), from its format (and an nnx.model-conformance/1 record's model.kind:
// base/built_in_model_record.h model_kind_of_record); a format no kind has is read as the built-in net's.
const ModelKindFacts& record_kind_facts(const json& record);
// The built-in net's `config` and `dtype` as a record states them: a v1 record's own keys, or a built-in model
// record's model.config and model.dtype (§11 kind "built-in"); {config: null, dtype: null} for any other.
json built_in_keys(const json& record);
// What a record's model is named by on the pages, its kind's label and model_member's model_label_key (a
// module record's {"module", module.factory}, an ONNX-file record's {"ONNX file", model.onnx}; a name ""
// when absent); nullopt for a kind whose record names no model (the built-in net's: its config and dtype
// describe it instead).
struct NamedModel {
  std::string word;  // "module" or "ONNX file"
  std::string name;  // the factory or the file
};
std::optional<NamedModel> named_model(const json& record);
// A case's inputs as inputs_text shows them, for a record whose cases name their inputs (§10, §11); nullopt
// for a v1 record, whose cases have a shape instead.
std::optional<std::string> case_inputs_text(const json& record, const json& c);
// The inputs of a module record's specs or of one of its cases, each as `name dtype shape`, "; " between
// them ("image float32 [2,3,64,64]"); "" when there are none.
std::string inputs_text(const json& inputs);

// A number exactly as the record writer prints it (base/json_python.h: Python's repr for floats); other
// values as canonical JSON text; null as "null". The JUnit XML and the HTML's hover titles carry this.
std::string value_text(const json& value);
// A value as the pages show it, the one number format of the HTML and the Markdown: a float at 3
// significant digits (printf's %.3g, as Python's format(x, ".3g"): 2.98e-07, 0.0001, 5e+03, 0), anything
// else as value_text. The exact value stays in the JSON (and, in the HTML, in the title on hover).
std::string shown_text(const json& value);

// A case never compared (its stage did not run, or it stopped before it): outcome and failure both null
// (doc/record-format.md §5, a blank case). The pages show it "not run", never "failed".
bool case_not_run(const json& input_case);
// A status as the pages word it: "not_run" is "not run"; the others as the record spells them.
std::string status_label(const std::string& status);

}  // namespace nnx::report
