// What `run` shows and measures besides its summary (README "Progress and timings"; app/run_observer.h).
//
// With `show` and stderr a terminal, one line on stderr is redrawn with the profile and stage running
// ("nnx: <profile>: <stage>") and cleared at the end; otherwise nothing is printed. With a `timings_path`,
// `finish` writes {"total_s": float, "phases": [{"name", "profile", "worker", "start_s", "seconds"}...]}
// atomically there. Nothing of this enters the record or the report.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/run_observer.h"

namespace nnx::cli {

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
};

}  // namespace nnx::cli
