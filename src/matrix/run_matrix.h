// The matrix sequence every front end calls (doc/runtime-matrix.md): `run_matrix` reads the report (or one
// record) and hashes its bytes, refuses before any cell starts a record that is invalid or, given alone, whose
// check did not pass (a report's such record is carried into each runtime unchanged: app/execute_record.h
// record_to_execute), an output path that breaks the output-path rule (artifacts/output_paths.h: not a regular or new
// file, the report itself, inside the root) or cannot be written, no runtime, a library path that is not a file, or a
// release named twice; runs this shard's cells (matrix/cell_runner.h: one child process per runtime, up to
// `jobs` at once; each child verifies the artifacts' hashes before loading, as execute does) in a private
// temporary folder that is removed afterwards; for each cell beyond the tolerance of the newest cell, the first
// node where the two part (matrix/parting.h: two more child processes, in that folder too); validates every
// record and writes the matrix document (matrix/matrix_document.h) atomically.
// `merge_matrices` joins parts made with --shard (the output may be none of them): every part must name the same report sha256 and no
// runtime may appear in two parts (ConformanceError naming both files); drift is recomputed from the parts'
// outputs, so the merge of a complete set of shards equals the unsharded matrix; each part's partings are kept. Every cell carries the host it
// ran on (`run_matrix`: this machine's, base/host_facts.h); a merge whose cells ran on different hosts says so,
// and how, in its outcome's notes (the numbers of two hosts may differ with the same release).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/cell_plan.h"
#include "matrix/matrix_document.h"

namespace nnx::matrix {

struct MatrixRequest {
  std::filesystem::path report;
  std::filesystem::path root;
  std::optional<std::filesystem::path> output;  // written atomically when given
  std::vector<RuntimeChoice> runtimes;          // the releases, in order
  // The settings axes' product (matrix/cell_settings.h settings_product): every release runs with each; empty:
  // the brief's only. A v1 record in a cell of other settings is written as §11's kind "built-in"; settings
  // outside §11's are refused (UsageError) before any cell starts.
  std::vector<CellSettings> settings;
  std::size_t jobs = 0;                         // 0: the number of cores
  std::optional<Shard> shard;
  // --balance: the shard's cells dealt out by the seconds this earlier matrix recorded (matrix/shard_balance.h);
  // needs `shard` (UsageError otherwise).
  std::optional<std::filesystem::path> balance;
  std::chrono::milliseconds timeout{std::chrono::seconds(600)};  // per cell process
  std::vector<std::string> child_command;       // how to start a cell (cell_child.h behind it)
  std::function<void(const MatrixCell&)> on_cell;  // told as each cell completes
};

struct MatrixOutcome {
  json document;
  int exit_code = 0;
  // What a balanced shard says (each cell weighed without a recorded time), and what a merge says before its
  // parts are compared (each cell whose host differs from the first's, and how; a cell naming no host; a part
  // whose kept outputs it cannot keep): front ends print these first.
  std::vector<std::string> notes;
};

MatrixOutcome run_matrix(const MatrixRequest& request);

// `parts` are (file name, document) pairs; the merged document is written atomically to `output` when given.
MatrixOutcome merge_matrices(const std::vector<std::pair<std::string, json>>& parts,
                             const std::optional<std::filesystem::path>& output);

}  // namespace nnx::matrix
