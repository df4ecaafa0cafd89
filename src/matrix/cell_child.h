// The child side of one matrix cell (doc/runtime-matrix.md, "Cells and shards"): one process opens one ONNX Runtime
// library (two libraries in one process are not safe) and executes the report's records from `first` on,
// exactly as `execute` does (app/execute_record.h, native reference). It tells its parent where it is, one
// line per step on `progress_fd`, written before the step so that a crash or hang can be placed:
//   record I | open | opened VERSION | session | run K | done I
// and writes, for each record I, `<cell_dir>/record-I.json` atomically: {"record": ..., "outputs": [...]}
// where outputs are the float32 outputs ONNX Runtime returned per case ({case, shape, values}, the cases that
// returned exactly one float output). A record whose runtime cannot be opened or that execute refuses is that
// record's load-error (app/execute_record.h, failed_execution_record). Returns 0 when every record was written.
#pragma once

#include <cstddef>
#include <filesystem>

namespace nnx::matrix {

struct CellChildRequest {
  std::filesystem::path report;  // a report or one record
  std::filesystem::path root;
  std::filesystem::path library;
  std::filesystem::path cell_dir;
  std::size_t first = 0;
  int progress_fd = 1;
};

int run_cell_child(const CellChildRequest& request);

}  // namespace nnx::matrix
