// Where two releases part (parting.h).
#include "matrix/parting.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fcntl.h>

#include "app/execute_record.h"
#include "base/atomic_file.h"
#include "base/child_process.h"
#include "base/error.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "record/report.h"

namespace nnx::matrix {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
constexpr const char* kAnswerFile = "parting.json";

// Runs `args` to its end or `timeout` (then SIGKILL to its group), woken by its exit (base/child_process.h
// open_exit_fd); "" when it exited 0, else how it ended and the end of its stderr.
std::string run_to_end(const std::vector<std::string>& args, const std::filesystem::path& stderr_file,
                       std::chrono::milliseconds timeout) {
  const pid_t pid = spawn_in_own_group(args,
                                       {ChildFd::open(0, "/dev/null", O_RDONLY), ChildFd::open(1, "/dev/null", O_WRONLY),
                                        ChildFd::open(2, stderr_file.string(), O_WRONLY | O_CREAT | O_TRUNC)},
                                       nullptr, false);
  const int exit_fd = open_exit_fd(pid);
  const auto deadline = Clock::now() + timeout;
  int status = 0;
  bool killed = false;
  while (::waitpid(pid, &status, WNOHANG) != pid) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      killed = true;
      break;
    }
    if (exit_fd < 0) {  // no pidfd (before Linux 5.3): look again in slices
      ::poll(nullptr, 0, 20);
      continue;
    }
    pollfd exited{exit_fd, POLLIN, 0};
    ::poll(&exited, 1, static_cast<int>(left));
  }
  if (exit_fd >= 0) ::close(exit_fd);
  if (killed) return "it ran past the matrix's timeout and was killed";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  const std::string tail = stderr_tail(stderr_file);
  const std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                            : "signal " + std::to_string(WTERMSIG(status));
  return "it ended with " + how + (tail.empty() ? "" : ": " + tail);
}

json not_localised(const std::string& why) { return json{{"status", "not-localised"}, {"why", why}}; }

// One parting: the newest release's values dumped, then the departing release localised against them.
json part(const json& entry, std::size_t record, const CellChoice& newest_cell, const CellChoice& departing,
          const CellRunOptions& options, const std::filesystem::path& dir) {
  const std::string drift_case = entry.at("case").get<std::string>();  // "<case>/<output>" for one of several
  const std::string case_name = drift_case.substr(0, drift_case.find('/'));
  const std::string newest = entry.at("newest").get<std::string>();
  const auto args = [&](const CellChoice& cell, const char* step, const std::filesystem::path& folder) {
    std::vector<std::string> a = options.child_command;
    for (const std::string& s : {options.report_copy.string(), options.root.string(), std::string("--onnxruntime"),
                                 cell.runtime.library.string(), std::string("--cell-dir"), folder.string(),
                                 std::string("--parting-values"), (dir / "values").string(), std::string("--first"),
                                 std::to_string(record), std::string("--parting"), std::string(step),
                                 std::string("--parting-case"), case_name, std::string("--parting-label"),
                                 "ONNX Runtime " + newest + ", the reference cell,"}) {
      a.push_back(s);
    }
    for (const std::string& s : settings_arguments(cell.settings)) a.push_back(s);
    return a;
  };
  std::filesystem::create_directories(dir / "values");
  if (auto failed = run_to_end(args(newest_cell, "dump", dir / "values"), dir / "dump.err", options.timeout);
      !failed.empty()) {
    return not_localised("ONNX Runtime " + newest + " could not write the case's values: " + failed);
  }
  std::filesystem::create_directories(dir / "compare");
  if (auto failed = run_to_end(args(departing, "compare", dir / "compare"), dir / "compare.err", options.timeout);
      !failed.empty()) {
    return not_localised("the departing release could not be localised: " + failed);
  }
  const json answer = read_strict_json_file(dir / "compare" / kAnswerFile);
  return answer.value("localisation", not_localised("the departing release wrote no localisation"));
}

}  // namespace

json find_partings(const json& drift, const std::vector<std::string>& names, const std::vector<CellChoice>& cells,
                   const std::vector<json>& records, const CellRunOptions& options) {
  json out = json::array();
  const auto cell_of = [&](const std::string& name) -> const CellChoice* {
    for (std::size_t k = 0; k < names.size() && k < cells.size(); ++k) {
      if (names[k] == name) return &cells[k];
    }
    return nullptr;
  };
  for (const auto& entry : drift.value("beyond_tolerance", json::array())) {
    const std::string profile = entry.at("profile").get<std::string>();
    const std::size_t record = std::find_if(records.begin(), records.end(), [&](const json& r) {
                                 return r.value(rf::kProfile, "") == profile;
                               }) - records.begin();  // records.size(): none
    const auto* newest = cell_of(entry.at("newest").get<std::string>());
    const auto* departing = cell_of(entry.at("version").get<std::string>());
    json localisation;
    if (record == records.size() || !newest || !departing) {
      localisation = not_localised("the matrix does not hold both cells' libraries");
    } else {
      localisation = part(entry, record, *newest, *departing, options,
                          options.work_dir / ("parting-" + std::to_string(out.size())));
    }
    out.push_back({{"profile", profile}, {"case", entry.at("case")}, {"version", entry.at("version")},
                   {"newest", entry.at("newest")}, {"localisation", localisation}});
  }
  return out;
}

int run_parting_child(const PartingChildRequest& request) {
  watch_lifeline();
  const std::vector<json> records = records_of(read_strict_json_file(request.report));
  ExecuteOptions options;
  options.onnxruntime_library = request.library;
  options.reference = ReferenceKind::native;  // no Python in a cell
  if (!request.settings.tested()) options.session = request.settings.as_override();
  options.parting = ExecuteOptions::Parting{
      request.step == "dump" ? ExecuteOptions::Parting::Step::dump : ExecuteOptions::Parting::Step::compare,
      request.values, request.case_name, request.label};
  const json record = execute_record(records.at(request.first), request.root, options);
  json answer{{"step", request.step}};
  if (request.step != "dump") {
    answer["localisation"] = record.at(rf::kStages).at(kStageNames[stage_index(Stage::parity)]).at(rf::stage_key::kDetail).value("localisation", json());
  }
  write_file_atomically(request.folder / kAnswerFile, answer.dump() + "\n");
  return 0;
}

json partings_from_json(const json& partings) {
  if (!partings.is_array()) throw ConformanceError("runtime matrix: partings: is not a list");
  for (std::size_t i = 0; i < partings.size(); ++i) {
    const json& p = partings[i];
    const std::string where = "runtime matrix: partings[" + std::to_string(i) + "]";
    if (!p.is_object() || p.size() != 5) throw ConformanceError(where + ": is not {profile, case, version, newest, localisation}");
    for (const char* key : {"profile", "case", "version", "newest"}) {
      if (!p.contains(key) || !p[key].is_string()) throw ConformanceError(where + "." + key + ": is not a string");
    }
    if (!p.contains("localisation") || !p["localisation"].is_object() || !p["localisation"].value("status", json()).is_string()) {
      throw ConformanceError(where + ".localisation: is not a localisation");
    }
  }
  return partings;
}

std::vector<std::string> parting_lines(const json& partings) {
  std::vector<std::string> lines;
  for (const auto& p : partings) {
    const json& l = p.at("localisation");
    const std::string said = l.value("summary", l.value("why", std::string("?")));
    lines.push_back("parting: " + p.at("version").get<std::string>() + " against " + p.at("newest").get<std::string>() +
                    " on " + p.at("profile").get<std::string>() + " (case " + p.at("case").get<std::string>() + "): " + said);
  }
  return lines;
}

}  // namespace nnx::matrix
