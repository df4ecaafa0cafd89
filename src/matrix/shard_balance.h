// Shards balanced by the seconds an earlier matrix recorded (doc/runtime-matrix.md, "Many machines"):
// `matrix --shard K/N --balance EARLIER.json` weighs each cell by the `seconds` EARLIER recorded for the same
// cell (its name, matrix/cell_settings.h cell_name: the release asked for, else the one its library's file
// name states, then its settings) and deals
// the cells out longest first, each to the shard with the least seconds so far (ties: the earlier cell, the
// lower shard), so every machine given the same runtimes and the same EARLIER computes the same plan and the
// shards' union is every cell, each once. A cell EARLIER has no seconds for weighs the mean of those it has
// (1 s when it has none), said in a note. The part records EARLIER's sha256 (`balanced_by`), and a merge
// refuses parts balanced differently. EARLIER is read strictly (matrix_document.h matrix_from_json).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "matrix/cell_plan.h"

namespace nnx::matrix {

// The cells of `shard` when cell i weighs `weights[i]`, in cell order: the rule above.
std::vector<std::size_t> balanced_shard_cells(const std::vector<double>& weights, const Shard& shard);

struct BalancedShard {
  std::vector<std::size_t> cells;   // in cell order
  std::string balanced_by;          // EARLIER's sha256
  std::vector<std::string> notes;   // each cell weighed without a recorded time
};

BalancedShard balance_from(const std::filesystem::path& earlier, const std::vector<CellChoice>& cells,
                           const Shard& shard);

}  // namespace nnx::matrix
