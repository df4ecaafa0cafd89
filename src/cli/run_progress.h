// What `run` shows and measures besides its summary (doc/cli.md, "Progress and timings"; app/run_observer.h).
//
// With `show` and stderr a terminal, one line on stderr is redrawn with the profile and stage running
// ("nnx: <profile>: <stage>") and cleared at the end; otherwise nothing is printed. The line is cut to the
// terminal's width less one column (TIOCGWINSZ, else $COLUMNS, else 80; "…" where cut), so it never wraps
// and each redraw ("\r\033[K") leaves nothing behind. With a `timings_path`,
// `finish` writes {"total_s": float, "phases": [{"name", "profile", "worker", "start_s", "seconds"}...]}
// atomically there. Nothing of this enters the record or the report. With `run --jobs N` several profiles
// run at once: the line shows each running profile's stage ("nnx: a: export | b: check"); every callback
// takes one mutex.
//
// `require_timings_path`, before the run: the timings file's folder must exist and be writable (UsageError,
// exit 2; nothing is written). What the file may not be (a folder, FIFO or device, the report itself, a
// path inside the artifacts root) is the output-path rule the run applies to every output it writes
// (artifacts/output_paths.h).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/run_observer.h"

namespace nnx::cli {

void require_timings_path(const std::filesystem::path& timings);

class RunProgress {
 public:
  RunProgress(bool show, std::string timings_path);
  std::shared_ptr<RunObserver> observer() const { return observer_; }
  // Clears the progress line and writes the timings file, when asked for.
  void finish();

 private:
  bool live_ = false;
  std::string timings_path_;
  std::shared_ptr<RunObserver> observer_;
  std::shared_ptr<std::mutex> mutex_ = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<RunPhase>> phases_ = std::make_shared<std::vector<RunPhase>>();
  // The stage of each profile running now, in the order they started.
  std::shared_ptr<std::vector<std::pair<std::string, std::string>>> running_ =
      std::make_shared<std::vector<std::pair<std::string, std::string>>>();
};

}  // namespace nnx::cli
