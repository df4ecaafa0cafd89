// The runtime matrix document nnx.runtime-matrix/1 (doc/runtime-matrix.md): the report it executed (path,
// sha256), the shard it covers when it is one part, one entry per cell — its version, its settings when they
// are not the brief's (matrix/cell_settings.h; a document without axes holds none) and then its name (`cell`),
// the sha256 of its
// library, status (passed iff every record passed), its records (each a valid record of either format:
// nnx.export-conformance/1 or a module record, doc/record-format.md §10), the outputs it computed (what drift and
// a merge need) and the host it ran on (base/host_facts.h; none in a document made before hosts) — and the drift
// between the runtimes.
// `matrix_to_json` orders the cells (cell_before) and computes status and drift, so the same cells always give
// the same document; `matrix_from_json` reads one back strictly (unknown keys, wrong types, invalid records
// and malformed outputs are refused with ConformanceError naming the place).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/host_facts.h"
#include "base/record_vocabulary.h"
#include "matrix/cell_plan.h"
#include "matrix/cell_settings.h"
#include "stages/kept_outputs.h"
#include "matrix/drift.h"

namespace nnx::matrix {

struct MatrixCell {
  std::string version;         // the runtime's version
  std::string library_sha256;  // of the library file opened
  std::vector<json> records;   // one per record of the report, in its order
  RuntimeOutputs outputs;      // what the runtime computed, per profile and case
  std::optional<HostFacts> host;  // the host it ran on (base/host_facts.h); none in a document made before hosts
  // What its records' parity compared, kept beside the document, never in it (stages/kept_outputs.h): filled
  // by a run's cells; empty for a cell read from a document.
  std::vector<KeptRecord> kept;
  // The wall time its processes took (milliseconds kept), what `--balance` weighs a cell by; none in a
  // document made before it was recorded.
  std::optional<double> seconds;
  CellSettings settings;  // the session and provider it ran with (the brief's unless the matrix has axes)
  // The cell's identity: its version, then its settings when they are not the brief's (cell_name).
  std::string name() const { return cell_name(version, settings); }
};

// The document's order of cells: by version (compare_versions), then by settings (compare_settings).
bool cell_before(const MatrixCell& a, const MatrixCell& b);

struct MatrixDocument {
  std::string report_path;
  std::string report_sha256;
  std::optional<Shard> shard;  // a part made with --shard; none for a whole or merged matrix
  // A part whose shards were balanced by an earlier matrix's seconds (`--balance`): that matrix's sha256.
  std::optional<std::string> balanced_by;
  std::vector<MatrixCell> cells;
  // Where each cell beyond the tolerance of the newest parts from it (matrix/cell_parting.h): [{profile, case,
  // version, newest, localisation}]; written only when it holds one, kept as given by a merge.
  json partings = json::array();
};

bool cell_passed(const MatrixCell& cell);
// The "outputs" of one runtime entry ({profile: [{case, shape, values}]}) both ways; values are float32,
// written as the record writer writes numbers and refused when one is not exactly a float32.
json outputs_to_json(const RuntimeOutputs& outputs);
RuntimeOutputs outputs_from_json(const json& outputs, const std::string& version, const std::string& where);
json matrix_to_json(const MatrixDocument& matrix);
MatrixDocument matrix_from_json(const json& document);
// What `validate` finds in a runtime matrix: matrix_from_json's refusal (keys, types, every record valid,
// each runtime's status against its records), else the document's status and drift against what its
// runtimes give (matrix_to_json recomputes both); empty for a valid matrix.
std::vector<std::string> matrix_problems(const json& document);
// The name of a document's runtimes[i] entry (MatrixCell::name): its `cell`, else its version.
std::string cell_name_of(const json& runtime);
// One line per runtime × profile, then the drift lines.
std::vector<std::string> matrix_summary_lines(const json& matrix);
// 0 when every record of every runtime passed; else the class code of the first failing one (runtimes by
// version, records in order); 1 when there are none.
int matrix_exit_code(const MatrixDocument& matrix);

}  // namespace nnx::matrix
