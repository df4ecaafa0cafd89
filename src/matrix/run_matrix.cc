#include "matrix/run_matrix.h"

#include <map>
#include <set>
#include <thread>

#include "app/execute_record.h"
#include "artifacts/output_paths.h"
#include "base/atomic_file.h"
#include "base/error.h"
#include "base/file_bytes.h"
#include "base/front_end.h"
#include "base/interrupt.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/matrix_vocabulary.h"
#include "base/sha256.h"
#include "matrix/cell_runner.h"
#include "matrix/parting.h"
#include "matrix/shard_balance.h"
#include "matrix/work_folder.h"
#include "stages/kept_outputs.h"
#include "record/validate_record.h"

namespace nnx::matrix {
namespace {

// The document, then the kept outputs of `cells` beside it, belonging to its bytes (stages/kept_outputs.h):
// none when `keep` is false (an older folder of them removed).
void write_document(const json& document, const std::optional<std::filesystem::path>& output,
                    const std::vector<MatrixCell>& cells, bool keep) {
  if (!output) return;
  const std::string text = dumps_pretty(document) + "\n";
  write_file_atomically(*output, text);
  if (!keep) return remove_kept_outputs(kept_outputs_folder(*output));  // none stale beside it
  KeptOutputs kept{sha256_hex(text), {}};
  for (const auto& cell : cells) kept.records.insert(kept.records.end(), cell.kept.begin(), cell.kept.end());
  write_kept_outputs(kept_outputs_folder(*output), kept);
}

// Before anything runs: the output path and the kept outputs' folder beside it may be written.
void check_output(const std::optional<std::filesystem::path>& output, PathUse use) {
  if (!output) return;
  use.outputs = {{"the output path", *output}};
  check_output_paths(use);
  require_writable_file_path(*output, "the output path");
  require_replaceable_kept_outputs(kept_outputs_folder(*output));
}

}  // namespace

MatrixOutcome run_matrix(const MatrixRequest& request) {
  const ScopedInterruptHandlers interrupts;
  if (request.runtimes.empty()) {
    throw UsageError("no runtime: name one or more with " + std::string(spelled(Argument::matrix_runtimes)));
  }
  std::set<std::string> versions;
  for (const auto& r : request.runtimes) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(r.library, ec)) {
      throw UsageError(std::string(spelled(Argument::matrix_library)) + " " + r.given + ": no such library file (" +
                       r.library.string() + ")");
    }
    if (r.version && !versions.insert(*r.version).second) {
      throw UsageError("ONNX Runtime " + *r.version + " is named twice: a matrix names each release once");
    }
  }
  check_output(request.output, {{}, {{"the report", request.report}}, {{"the artifacts root", request.root}}});
  const std::string bytes = read_file_bytes(request.report, kMaxJsonTextBytes, "the JSON limit", ErrorKind::usage);
  const json document = parse_strict_json(bytes);
  const std::vector<json> records = records_of(document);
  if (records.empty()) throw ConformanceError(request.report.string() + " holds no records");
  const std::vector<CellSettings> settings = request.settings.empty() ? std::vector<CellSettings>{CellSettings{}} : request.settings;
  for (const auto& r : records) {
    const std::optional<Record> executable = record_to_execute(document, r, request.root);  // valid, kept or executable
    if (!executable) continue;
    for (const auto& s : settings) {  // each record takes each cell's settings: refused before any cell starts
      if (s.tested()) continue;
      session_to_run(*executable, s.as_override());
      provider_options_to_run(*executable, s.as_override());  // and provider_to_run
    }
  }
  const std::vector<CellChoice> cells = cell_choices(request.runtimes, settings);
  if (request.balance && !request.shard) throw UsageError("--balance balances the cells of --shard: name one");
  std::optional<BalancedShard> balanced;
  if (request.balance) balanced = balance_from(*request.balance, cells, *request.shard);
  std::vector<CellChoice> chosen;
  for (std::size_t i : balanced ? balanced->cells : shard_cells(cells.size(), request.shard.value_or(Shard{}))) {
    chosen.push_back(cells[i]);
  }
  sweep_orphaned_work_folders();
  const WorkFolder work;
  CellRunOptions options;
  options.child_command = request.child_command;
  options.report_copy = work.path() / "report.json";
  write_file_atomically(options.report_copy, bytes);
  options.root = std::filesystem::absolute(request.root);
  options.work_dir = work.path();
  options.jobs = request.jobs ? request.jobs : std::max(1u, std::thread::hardware_concurrency());
  options.timeout = request.timeout;
  MatrixDocument matrix;
  matrix.report_path = request.report.string();
  matrix.report_sha256 = sha256_hex(bytes);
  matrix.shard = request.shard;
  if (balanced) matrix.balanced_by = balanced->balanced_by;
  matrix.cells = run_cells(chosen, records, options, request.on_cell);
  const HostFacts host = this_host();  // every cell of one matrix runs here, in a child of this process
  for (auto& cell : matrix.cells) cell.host = host;
  std::map<std::string, std::size_t> seen;
  for (const auto& cell : matrix.cells) {
    if (++seen[cell.name()] > 1) {
      throw ConformanceError("two runtimes report version " + cell.version + ": a matrix names each release once");
    }
  }
  for (const auto& cell : matrix.cells) {
    for (const auto& record : cell.records) validate_record(record);  // as execute: nothing invalid is written
  }
  std::vector<std::string> cell_names;  // cells come back in the order of `chosen`
  for (const auto& cell : matrix.cells) cell_names.push_back(cell.name());
  matrix.partings =
      find_partings(matrix_to_json(matrix).at(rf::matrix_key::kDrift), cell_names, chosen, records, options);
  MatrixOutcome outcome{matrix_to_json(matrix), matrix_exit_code(matrix), balanced ? balanced->notes : std::vector<std::string>{}};
  throw_if_interrupted();
  write_document(outcome.document, request.output, matrix.cells, true);
  return outcome;
}

// What merge says before it compares parts: each cell whose host differs from the first cell's that has one,
// how (base/host_facts.h), and the cells that name none (a part made before hosts were recorded).
std::vector<std::string> host_notes(const MatrixDocument& merged, const std::map<std::string, std::string>& owner) {
  std::vector<std::string> notes;
  const MatrixCell* first = nullptr;
  for (const auto& cell : merged.cells) {
    if (!cell.host) {
      notes.push_back("ONNX Runtime " + cell.name() + " (" + owner.at(cell.name()) +
                      ") names no host: whether its numbers come from the same machine as the others is unknown");
    } else if (!first) {
      first = &cell;
    } else if (const std::string how = host_differences(*first->host, *cell.host); !how.empty()) {
      notes.push_back("parts come from different hosts: ONNX Runtime " + cell.name() + " (" +
                      owner.at(cell.name()) + ") ran on another host than " + first->name() + " (" +
                      owner.at(first->name()) + "): " + how + "; drift between them mixes host and release");
    }
  }
  return notes;
}

// A merge keeps the parts' kept outputs when every part has them beside its file (read strictly, as belonging
// to that file's bytes): the part's records go to its `count` cells, the last of `cells`. Returns false, and
// says so in `notes`, for a part without them or whose kept outputs are refused (a part edited since).
bool keep_part_outputs(const std::string& file, std::vector<MatrixCell>& cells, std::size_t count,
                       std::vector<std::string>& notes) {
  const std::filesystem::path folder = kept_outputs_folder(file);
  std::error_code ec;
  if (!std::filesystem::exists(folder / kKeptOutputsListing, ec)) {
    notes.push_back(file + " has no kept outputs beside it (" + folder.string() +
                    "): the merged matrix keeps none, so `rejudge` cannot re-judge it");
    return false;
  }
  KeptOutputs kept;
  try {
    kept = read_kept_outputs(folder, sha256_file(file));
  } catch (const ConformanceError& e) {  // edited since, or another document's: what rejudge would refuse
    notes.push_back(file + "'s kept outputs are refused (" + e.what() + "): the merged matrix keeps none");
    return false;
  }
  for (auto& record : kept.records) {
    for (std::size_t c = cells.size() - count; c < cells.size(); ++c) {
      if (cells[c].name() == record.runtime) cells[c].kept.push_back(std::move(record));
    }
  }
  return true;
}

MatrixOutcome merge_matrices(const std::vector<std::pair<std::string, json>>& parts,
                             const std::optional<std::filesystem::path>& output) {
  if (parts.empty()) throw UsageError("matrix-merge needs one or more parts");
  PathUse use;
  for (const auto& part : parts) use.inputs.push_back({"the part", part.first});
  check_output(output, use);
  MatrixDocument merged;
  bool keep = true;  // every part has its kept outputs beside it
  std::vector<std::string> notes;
  std::map<std::string, std::string> owner;  // version -> part file
  std::map<std::size_t, std::string> shard_owner;  // K -> part file, for parts made with --shard K/N
  std::optional<std::pair<std::size_t, std::string>> shard_count;  // N and the part that set it
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto& [file, document] = parts[p];
    MatrixDocument part;
    try {
      part = matrix_from_json(document);
    } catch (const Error& e) {
      throw ConformanceError(file + ": " + e.what());
    }
    if (p == 0) {
      merged.report_path = part.report_path;
      merged.report_sha256 = part.report_sha256;
      merged.balanced_by = part.balanced_by;
    } else if (part.balanced_by != merged.balanced_by) {
      const auto said = [](const std::optional<std::string>& by) { return by ? "balanced by the matrix " + *by : std::string("not balanced"); };
      throw ConformanceError(file + " is " + said(part.balanced_by) + " but " + parts[0].first + " is " +
                             said(merged.balanced_by) + ": only shards of one plan merge");
    } else if (part.report_sha256 != merged.report_sha256) {
      throw ConformanceError(file + " is a matrix of a different report (sha256 " + part.report_sha256 + ", " +
                             parts[0].first + " has " + merged.report_sha256 + "): only parts of one report merge");
    }
    if (part.shard) {
      const std::string text = shard_text(*part.shard);
      if (!shard_count) shard_count.emplace(part.shard->count, file);
      if (part.shard->count != shard_count->first) {
        throw ConformanceError(file + " is shard " + text + " but " + shard_count->second + " is one of " +
                               std::to_string(shard_count->first) + " shards: only shards of one split merge");
      }
      const auto [it, fresh] = shard_owner.emplace(part.shard->index, file);
      if (!fresh) throw ConformanceError(file + " and " + it->second + " are both shard " + text);
    }
    for (auto& cell : part.cells) {
      const auto [it, fresh] = owner.emplace(cell.name(), file);
      if (!fresh) {
        throw ConformanceError("ONNX Runtime " + cell.name() + " is in both " + it->second + " and " + file +
                               ": overlapping cells do not merge (were the shards made with the same K?)");
      }
      merged.cells.push_back(std::move(cell));
    }
    keep = keep && keep_part_outputs(file, merged.cells, part.cells.size(), notes);
    for (auto& parting : part.partings) merged.partings.push_back(std::move(parting));
  }
  if (shard_count) {  // a merge of shards is the whole matrix only when every shard is there
    std::string missing;
    for (std::size_t k = 0; k < shard_count->first; ++k) {
      if (!shard_owner.contains(k)) missing += (missing.empty() ? "" : ", ") + shard_text(Shard{k, shard_count->first});
    }
    if (!missing.empty()) {
      throw ConformanceError("shard " + missing + " is missing: a merge of shards needs every one of the " +
                             std::to_string(shard_count->first));
    }
  }
  merged.balanced_by.reset();  // a whole matrix: no shard, and no plan of shards
  MatrixOutcome outcome{matrix_to_json(merged), matrix_exit_code(merged), host_notes(merged, owner)};
  outcome.notes.insert(outcome.notes.end(), notes.begin(), notes.end());
  write_document(outcome.document, output, merged.cells, keep);
  return outcome;
}

}  // namespace nnx::matrix
