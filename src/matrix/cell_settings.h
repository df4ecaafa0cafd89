// The settings axes of a runtime matrix (doc/runtime-matrix.md, "Axes"): beside the release, a cell is run
// with one graph optimisation level, one intra-op thread count and one execution provider, and the session
// config entries and provider options given to every cell. The matrix runs the product of the values asked for (`settings_product`:
// levels, then threads, then providers, each in the order given; an axis not asked for holds the brief's value),
// each release with every one of them. A cell with the brief's settings (`tested`) is the cell the matrix ran
// before axes existed, its records and document entry unchanged; any other is named by record/run_name.h
// ("1.30.0 (ORT_DISABLE_ALL, 2 threads)") and its document entry says its settings in full (`to_json`, read
// back strictly by `from_json`). Cells order by release, then by `compare_settings`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run_options.h"
#include "record/record.h"

namespace nnx::matrix {

struct CellSettings {
  SessionOptions session;  // level, intra-op threads (one inter-op thread), config entries
  std::string provider = rf::runtime_key::kRequiredProvider;
  std::map<std::string, std::string> provider_options;  // given to `provider` (never to CPUExecutionProvider)

  bool tested() const;  // the brief's: ORT_ENABLE_ALL, 1 thread, no config entry, CPUExecutionProvider, no option
  // What execute_record is asked for (app/execute_record.h session_to_run, provider_to_run).
  SessionOverride as_override() const;
  // {graph_optimization_level, inter_op_num_threads, intra_op_num_threads, config?, provider, provider_options?}
  nlohmann::json to_json() const;
  // ConformanceError naming `where` for an unknown or missing key, a wrong type, a level that is not one of
  // ONNX Runtime's, a thread count outside 1..256, an empty provider, provider options that are not a non-empty
  // object of strings or are given to CPUExecutionProvider.
  static CellSettings from_json(const nlohmann::json& value, const std::string& where);
  bool operator==(const CellSettings&) const = default;
};

// <0, 0, >0: the level in ONNX Runtime's order (DISABLE_ALL first), then threads, then the provider (CPU
// first, then by name), then the config entries, then the provider options.
int compare_settings(const CellSettings& a, const CellSettings& b);

// The product of the values asked for; an empty list holds the brief's value; `config` and `provider_options`
// are every cell's. UsageError for a level that is not one of ONNX Runtime's, a thread count outside 1..256, an
// empty provider, a value named twice, or provider options when a cell's provider is CPUExecutionProvider
// (named or left out: it takes none).
std::vector<CellSettings> settings_product(const std::vector<std::string>& levels,
                                           const std::vector<std::int64_t>& threads,
                                           const std::vector<std::string>& providers,
                                           const std::map<std::string, std::string>& config,
                                           const std::map<std::string, std::string>& provider_options);

// `record` (a report's record) with the settings of a cell that did not execute it itself (its process
// crashed or hung, or the runtime could not be opened): runtime.session, runtime.provider and
// runtime.provider_options as the cell would have run it, in the format the cell would have written (a tested
// profile's: §11's kind "built-in", Record::settle_format_for_settings); unchanged for the brief's settings.
nlohmann::json record_with_settings(const nlohmann::json& record, const CellSettings& settings);

// A cell child's settings from its `--settings` argument ("": the brief's); ConformanceError as from_json.
CellSettings settings_from_argument(const std::string& text);

// The cell's name: its release, then its settings when they are not the brief's (record/run_name.h).
std::string cell_name(const std::string& version, const CellSettings& settings);

}  // namespace nnx::matrix
