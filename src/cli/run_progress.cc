#include "cli/run_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <nlohmann/json.hpp>

#include "artifacts/output_paths.h"
#include "base/atomic_file.h"
#include "base/error.h"

namespace nnx::cli {
namespace {

namespace fs = std::filesystem;

// The terminal's width in columns: TIOCGWINSZ on stderr, else $COLUMNS, else 80. Asked at every redraw, so
// a resized window is followed.
std::size_t terminal_columns() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  const char* columns = std::getenv("COLUMNS");
  char* end = nullptr;
  const long parsed = columns ? std::strtol(columns, &end, 10) : 0;
  return columns && *end == '\0' && parsed > 0 && parsed < 100000 ? static_cast<std::size_t>(parsed) : 80;
}

// `line` cut to at most `columns` - 1 characters (UTF-8 code points), the last one "…" when cut: it never
// reaches the last column, so no terminal wraps it and "\r\033[K" clears all of it.
std::string fitted(const std::string& line, std::size_t columns) {
  const std::size_t room = columns > 1 ? columns - 1 : 0;
  std::vector<std::size_t> starts;  // where each code point begins
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= room) return line;
  if (room == 0) return "";
  return line.substr(0, starts[room - 1]) + "\xE2\x80\xA6";  // U+2026
}

void redraw(const std::vector<std::pair<std::string, std::string>>& running) {
  std::string line;
  for (const auto& [profile, stage] : running) line += (line.empty() ? "" : " | ") + profile + ": " + stage;
  if (!line.empty()) line = fitted("nnx: " + line, terminal_columns());
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

}  // namespace

void require_timings_path(const fs::path& timings) {
  const std::string named = "--timings " + timings.string();
  std::error_code ec;
  if (timings.filename().empty()) throw UsageError(named + " is a folder; give the path of a file");
  const fs::path file = resolved_path(timings);
  const fs::path parent = file.parent_path();
  if (!fs::is_directory(parent, ec)) throw UsageError(named + ": its folder " + parent.string() + " does not exist");
  std::string probe = (parent / ("." + file.filename().string() + ".probe-XXXXXX")).string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    throw UsageError(named + ": its folder " + parent.string() + " cannot be written (" + std::strerror(errno) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

RunProgress::RunProgress(bool show, std::string timings_path)
    : live_(show && ::isatty(STDERR_FILENO) == 1), timings_path_(std::move(timings_path)) {
  if (!live_ && timings_path_.empty()) return;
  observer_ = std::make_shared<RunObserver>();
  if (live_) {
    observer_->on_stage = [mutex = mutex_, running = running_](const std::string& profile,
                                                                const std::string& stage) {
      const std::lock_guard<std::mutex> lock(*mutex);
      auto it = std::find_if(running->begin(), running->end(), [&](const auto& r) { return r.first == profile; });
      if (it == running->end()) {
        running->emplace_back(profile, stage);
      } else {
        it->second = stage;
      }
      redraw(*running);
    };
    observer_->on_profile_end = [mutex = mutex_, running = running_](const std::string& profile) {
      const std::lock_guard<std::mutex> lock(*mutex);
      std::erase_if(*running, [&](const auto& r) { return r.first == profile; });
      redraw(*running);
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
