// The parent side of the matrix's cells (doc/runtime-matrix.md, "Cells and shards"): each cell (one runtime and its settings) runs in
// child processes of `child_command` (the command line's hidden `matrix-cell`, matrix/cell_child.h), each in its
// own process group and private folder under `work_dir`, up to `jobs` at once. A child that does not finish
// within `timeout` is killed (SIGKILL to its group). A child that dies (a signal, a non-zero exit, or killed
// for its time) leaves the record it was executing to be written here, from the last progress line it sent:
// died after a `run` line is a runtime-error naming the case, anything earlier a load-error; the message
// names the signal or exit code, the time limit, and the end of the child's stderr. The cell's remaining
// records then run in a fresh child, so one record's crash never takes the others with it. SIGINT/SIGTERM
// kill every child and throw Interrupted.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/cell_plan.h"
#include "matrix/matrix_document.h"

namespace nnx::matrix {

struct CellRunOptions {
  std::vector<std::string> child_command;  // argv before the cell's own arguments
  std::filesystem::path report_copy;       // the report the children read (the bytes the parent hashed)
  std::filesystem::path root;
  std::filesystem::path work_dir;          // one folder per cell is made under it
  std::size_t jobs = 1;
  std::chrono::milliseconds timeout{std::chrono::seconds(600)};
};

// Runs `cells` over `records` (the report's, in order); cells come back in the order of `cells`, each child
// told its cell's settings. `on_cell` is told of each cell as it completes (may be empty).
std::vector<MatrixCell> run_cells(const std::vector<CellChoice>& cells, const std::vector<json>& records,
                                  const CellRunOptions& options,
                                  const std::function<void(const MatrixCell&)>& on_cell = {});

// The child's arguments that carry a cell's settings: `--settings JSON` (CellSettings::to_json, read back by
// CellSettings::from_json), none for the brief's settings.
std::vector<std::string> settings_arguments(const CellSettings& settings);

// The last 600 characters of what a child wrote to its stderr file, trailing blanks trimmed ("" when it wrote
// nothing or left no file): what a cell's or a parting's failure quotes.
std::string stderr_tail(const std::filesystem::path& file);

// The sha256 of a library file (streamed); ConformanceError when it cannot be read.
std::string library_sha256(const std::filesystem::path& library);

}  // namespace nnx::matrix
