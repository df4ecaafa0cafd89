// Where two cells part (doc/runtime-matrix.md, "Where two releases part"): for each cell the drift finds
// beyond the tolerance of the newest cell on a profile and case, the first node where the two releases' values
// part, from the localisation engine (stages/localisation.h). Two child processes of the matrix's own command
// (the hidden `matrix-cell --parting`), one library each (two in one process are not safe):
//   dump     the newest release writes every value of the case at ORT_DISABLE_ALL (stages/localisation_dump.h);
//   compare  the departing release localises the case against those values, at the record's level and at
//            ORT_DISABLE_ALL, no repro written.
// The result is the document's `partings`: [{profile, case, version, newest, localisation}] — the
// localisation object as in a record's parity detail, or {status: not-localised, why} when a child failed
// (its exit and stderr's end) or ran out of the matrix's timeout. A sharded matrix localises the cells it holds
// with the newest it holds; a merge keeps each part's partings.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/cell_plan.h"
#include "matrix/cell_runner.h"

namespace nnx::matrix {

// The partings of `drift`'s beyond_tolerance entries; `cells[k]` is the cell named `names[k]` (its library
// and settings: each child runs with its cell's settings).
nlohmann::json find_partings(const nlohmann::json& drift, const std::vector<std::string>& names,
                             const std::vector<CellChoice>& cells, const std::vector<nlohmann::json>& records,
                             const CellRunOptions& options);

// The child side: record `first` of `report` under `library`, its step on case `case_name` with `values`.
struct PartingChildRequest {
  std::filesystem::path report;
  std::filesystem::path root;
  std::filesystem::path library;
  std::size_t first = 0;
  std::string step;  // "dump" or "compare"
  std::filesystem::path values;  // dump writes the values there, compare reads them
  std::filesystem::path folder;  // the answer (parting.json) goes there
  std::string case_name;
  std::string label;
  CellSettings settings;  // the cell's (the brief's: each record's own)
};
int run_parting_child(const PartingChildRequest& request);

// A document's partings, checked (ConformanceError naming the entry), and its summary lines.
nlohmann::json partings_from_json(const nlohmann::json& partings);
std::vector<std::string> parting_lines(const nlohmann::json& partings);

}  // namespace nnx::matrix
