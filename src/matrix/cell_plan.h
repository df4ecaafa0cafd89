// Which cells a matrix runs and which of them this machine runs (doc/runtime-matrix.md, "Cells and
// shards"). A cell is one runtime with one of the settings asked for (matrix/cell_settings.h; the brief's when
// none is); cells are numbered runtime by runtime in the order the command line names them, each runtime's
// settings in settings_product's order, and
// `--shard K/N` runs every N-th cell starting at K (0 <= K < N), so N machines given the same runtimes run
// disjoint cells whose union is every cell. Versions compare by their numeric X.Y.Z (then as text).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "matrix/cell_settings.h"

namespace nnx::matrix {

// One runtime as asked for: a library path, or a release of the runtime cache (its path resolved).
struct RuntimeChoice {
  std::string given;                   // what the user wrote (PATH or X.Y.Z)
  std::filesystem::path library;       // the library the cell opens
  std::optional<std::string> version;  // known up front for --onnxruntime-version

  // A library file (made absolute: cells run in other folders).
  static RuntimeChoice library_file(const std::string& path);
  // A cached release X.Y.Z (runtime/runtime_cache.h); UsageError when it is malformed or not cached.
  static RuntimeChoice cached_release(const std::string& version);
  // A release when `given` is X.Y.Z, else a library file (as Python's runtime_matrix takes either).
  static RuntimeChoice release_or_file(const std::string& given);
};

// One cell as asked for: a runtime, and the settings it runs with.
struct CellChoice {
  RuntimeChoice runtime;
  CellSettings settings;
};
// Every runtime with every one of `settings`, runtime by runtime.
std::vector<CellChoice> cell_choices(const std::vector<RuntimeChoice>& runtimes, const std::vector<CellSettings>& settings);

struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
};

// "K/N" with 0 <= K < N; UsageError naming the text otherwise.
Shard parse_shard(const std::string& text);

// `--shard ci` (doc/runtime-matrix.md, "Many machines"): the shard a CI's parallel job is, from the first of
// these pairs of variables `environment` (name -> value or null) holds, each read in its own base:
//   CI_NODE_INDEX / CI_NODE_TOTAL                          GitLab's `parallel:`, index from 1
//   CIRCLE_NODE_INDEX / CIRCLE_NODE_TOTAL                  CircleCI's `parallelism`, index from 0
//   BUILDKITE_PARALLEL_JOB / BUILDKITE_PARALLEL_JOB_COUNT  Buildkite's `parallelism`, index from 0
// UsageError naming the variables when none is set, and the pair and its values when they are not a shard.
struct CiShard {
  Shard shard;
  std::string from;  // "CI_NODE_INDEX=2 CI_NODE_TOTAL=3 (GitLab, from 1)"
};
CiShard shard_from_ci(const std::function<const char*(const char*)>& environment);
std::string shard_text(const Shard& shard);
// The cells of `shard` among `cells` cells: K, K+N, K+2N, ...
std::vector<std::size_t> shard_cells(std::size_t cells, const Shard& shard);

// <0, 0, >0 as a is older, the same as, newer than b: numeric X.Y.Z first, the whole text breaks ties.
int compare_versions(const std::string& a, const std::string& b);
// The version a library's file name states (libonnxruntime.so.X.Y.Z), or nullopt.
std::optional<std::string> version_in_file_name(const std::filesystem::path& library);

}  // namespace nnx::matrix
