#include "cli/run_progress.h"

#include <unistd.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"

namespace nnx::cli {

RunProgress::RunProgress(bool show, std::string timings_path)
    : live_(show && ::isatty(STDERR_FILENO) == 1), timings_path_(std::move(timings_path)) {
  if (!live_ && timings_path_.empty()) return;
  observer_ = std::make_shared<RunObserver>();
  if (live_) {
    observer_->on_stage = [mutex = mutex_](const std::string& profile, const std::string& stage) {
      const std::lock_guard<std::mutex> lock(*mutex);
      std::fprintf(stderr, "\r\033[Knnx: %s: %s", profile.c_str(), stage.c_str());
      std::fflush(stderr);
    };
  }
  if (!timings_path_.empty()) {
    observer_->on_phase = [mutex = mutex_, phases = phases_](const RunPhase& phase) {
      const std::lock_guard<std::mutex> lock(*mutex);
      phases->push_back(phase);
    };
  }
}

void RunProgress::finish() {
  if (!observer_) return;
  const double total = observer_->since_start(std::chrono::steady_clock::now());
  if (live_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
  if (timings_path_.empty()) return;
  nlohmann::json phases = nlohmann::json::array();
  const std::lock_guard<std::mutex> lock(*mutex_);
  for (const auto& p : *phases_) {
    phases.push_back({{"name", p.name},
                      {"profile", p.profile ? nlohmann::json(*p.profile) : nlohmann::json(nullptr)},
                      {"worker", p.worker ? nlohmann::json(*p.worker) : nlohmann::json(nullptr)},
                      {"start_s", p.start_s},
                      {"seconds", p.seconds}});
  }
  write_file_atomically(timings_path_, nlohmann::json{{"total_s", total}, {"phases", phases}}.dump(2) + "\n");
}

}  // namespace nnx::cli
