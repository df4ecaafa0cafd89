// The child side of one matrix cell (doc/runtime-matrix.md, "Cells and shards"): one process opens one ONNX Runtime
// library (two libraries in one process are not safe) and executes the report's records from `first` on,
// exactly as `execute` does (app/execute_record.h, native reference; a record whose check did not pass kept
// as it is, no runtime opened for it). It tells its parent where it is, one
// line per step on `progress_fd`, written before the step so that a crash or hang can be placed:
//   record I | open | opened VERSION | session | run K | done I
// and writes, for each record I, `<cell_dir>/record-I.json` atomically: {"record": ..., "outputs": [...]}
// where outputs are the float32 outputs ONNX Runtime returned per case ({case, shape, values}, the cases that
// returned exactly one float output), then every compared case's outputs and truth into
// `<cell_dir>/record-I-outputs/` (stages/kept_outputs.h, belonging to record-I.json). A record whose runtime
// cannot be opened or that execute refuses is that
// record's load-error (app/execute_record.h, failed_execution_record). Returns 0 when every record was written.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "matrix/cell_settings.h"

namespace nnx::matrix {

struct CellChildRequest {
  std::filesystem::path report;  // a report or one record
  std::filesystem::path root;
  std::filesystem::path library;
  std::filesystem::path cell_dir;
  std::size_t first = 0;
  int progress_fd = 1;
  // The cell's settings: each record executed under them (app/execute_record.h session_to_run, provider_to_run);
  // the brief's: each record under its own.
  CellSettings settings;
};

int run_cell_child(const CellChildRequest& request);

// The one place the cell's protocol with its parent (matrix/cell_runner.cc) is spelled: the first word of
// each progress line, and the keys and name of each record's file.
namespace cell_protocol {
inline constexpr const char* kSayRecord = "record";    // record I
inline constexpr const char* kSayOpen = "open";
inline constexpr const char* kSayOpened = "opened";    // opened VERSION
inline constexpr const char* kSaySession = "session";
inline constexpr const char* kSayRun = "run";          // run K
inline constexpr const char* kSayDone = "done";        // done I
inline constexpr const char* kRecordKey = "record";    // record-I.json: {"record": ..., "outputs": [...]}
inline constexpr const char* kOutputsKey = "outputs";
inline constexpr const char* kSettingsFlag = "--settings";  // the cell's settings, as CellSettings::to_json
inline std::string record_file_name(std::size_t index) { return "record-" + std::to_string(index) + ".json"; }
// The record's kept outputs (stages/kept_outputs.h), written after record-I.json and belonging to it.
inline std::string kept_outputs_name(std::size_t index) { return "record-" + std::to_string(index) + "-outputs"; }
}  // namespace cell_protocol

}  // namespace nnx::matrix
