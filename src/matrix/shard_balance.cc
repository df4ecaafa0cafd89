#include "matrix/shard_balance.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "base/error.h"
#include "base/file_bytes.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/sha256.h"
#include "matrix/matrix_document.h"

namespace nnx::matrix {

std::vector<std::size_t> balanced_shard_cells(const std::vector<double>& weights, const Shard& shard) {
  std::vector<std::size_t> order(weights.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
  std::vector<double> load(shard.count, 0.0);
  std::vector<std::size_t> mine;
  for (std::size_t cell : order) {
    const auto lightest = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[lightest] += weights[cell];
    if (lightest == shard.index) mine.push_back(cell);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

BalancedShard balance_from(const std::filesystem::path& earlier, const std::vector<CellChoice>& cells,
                           const Shard& shard) {
  const std::string bytes = read_file_bytes(earlier, kMaxJsonTextBytes, "the JSON limit", ErrorKind::usage);
  MatrixDocument document;
  try {
    document = matrix_from_json(parse_strict_json(bytes));
  } catch (const Error& e) {
    throw UsageError("--balance " + earlier.string() + " is not a runtime matrix to balance by: " + e.what());
  }
  std::map<std::string, double> recorded;  // cell name -> seconds
  for (const auto& cell : document.cells) {
    if (cell.seconds) recorded[cell.name()] = *cell.seconds;
  }
  std::vector<std::optional<double>> known;
  for (const auto& [runtime, settings] : cells) {
    const std::optional<std::string> version = runtime.version ? runtime.version : version_in_file_name(runtime.library);
    const auto found = version ? recorded.find(cell_name(*version, settings)) : recorded.end();
    known.push_back(found != recorded.end() ? std::optional(found->second) : std::nullopt);
  }
  double sum = 0.0;
  std::size_t count = 0;
  for (const auto& k : known) {
    if (k) sum += *k, ++count;
  }
  const double mean = count > 0 ? sum / static_cast<double>(count) : 1.0;
  BalancedShard out;
  std::vector<double> weights;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    weights.push_back(known[i].value_or(mean));
    if (!known[i]) {
      out.notes.push_back("ONNX Runtime " + cell_name(cells[i].runtime.given, cells[i].settings) + " has no seconds in " + earlier.string() +
                          ": weighed as " + python_float_repr(mean) + " s" + (count > 0 ? " (the mean)" : ""));
    }
  }
  out.cells = balanced_shard_cells(weights, shard);
  out.balanced_by = sha256_hex(bytes);
  return out;
}

}  // namespace nnx::matrix
