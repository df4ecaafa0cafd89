#include "matrix/cell_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>

#include "app/execute_record.h"
#include "base/child_process.h"
#include "base/file_bytes.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "base/json_python.h"
#include "base/json_strict.h"
#include "base/record_vocabulary.h"
#include "base/sha256.h"
#include "matrix/cell_child.h"


namespace nnx::matrix {
namespace {

namespace say = cell_protocol;
using Clock = std::chrono::steady_clock;

// Where one cell stands: which record comes next, what came back so far.
struct CellState {
  std::size_t index = 0;  // in `runtimes`
  std::filesystem::path dir;
  std::size_t next_record = 0;
  std::optional<std::string> version;  // as the runtime said it ("opened VERSION")
  std::vector<std::optional<json>> records;
  std::vector<json> outputs;           // per record: [{case, shape, values}]
  std::vector<KeptRecord> kept;        // what the records' parity compared (stages/kept_outputs.h)
  double seconds = 0.0;                // the wall time of its children, summed
};

// One running child of a cell and what its progress lines said.
struct Child {
  CellState* cell = nullptr;
  pid_t pid = -1;
  int pipe_fd = -1;
  int exit_fd = -1;  // a pidfd: readable when the child has exited (-1 when the kernel has none)
  std::filesystem::path stderr_file;
  Clock::time_point started;
  Clock::time_point deadline;
  std::string buffer;
  bool eof = false;
  bool timed_out = false;
  std::optional<std::size_t> record;  // the record it said it was executing
  std::string phase = "start";        // start | open | opened | session | run
  std::optional<std::size_t> run_index;

  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() { kill_and_reap(); }

  void kill_and_reap() {
    if (pid > 0) {
      ::kill(-pid, SIGKILL);
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      pid = -1;
    }
    close_pipe();
  }
  void close_pipe() {
    if (pipe_fd >= 0) ::close(pipe_fd);
    if (exit_fd >= 0) ::close(exit_fd);
    pipe_fd = -1;
    exit_fd = -1;
  }
};

void apply_line(Child& child, const std::string& line) {
  const auto space = line.find(' ');
  const std::string word = line.substr(0, space);
  const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
  if (word == say::kSayRecord) {
    child.record = std::stoul(rest);
    child.phase = "start";
    child.run_index.reset();
  } else if (word == say::kSayOpened) {
    child.phase = say::kSayOpened;
    child.cell->version = rest;
  } else if (word == say::kSayRun) {
    child.phase = say::kSayRun;
    child.run_index = std::stoul(rest);
  } else if (word == say::kSayOpen || word == say::kSaySession) {
    child.phase = word;
  }
}

void read_lines(Child& child) {
  char chunk[4096];
  while (true) {
    const ssize_t n = ::read(child.pipe_fd, chunk, sizeof chunk);
    if (n > 0) {
      child.buffer.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) child.eof = true;
    if (n < 0 && errno == EINTR) continue;
    break;  // EAGAIN: nothing more for now
  }
  std::size_t end;
  while ((end = child.buffer.find('\n')) != std::string::npos) {
    try {
      apply_line(child, child.buffer.substr(0, end));
    } catch (const std::exception&) {
      // a malformed line places nothing
    }
    child.buffer.erase(0, end + 1);
  }
}

std::unique_ptr<Child> spawn_child(CellState& cell, const CellChoice& choice, const CellRunOptions& options) {
  const RuntimeChoice& runtime = choice.runtime;
  auto child = std::make_unique<Child>();
  child->cell = &cell;
  child->stderr_file = cell.dir / ("stderr-" + std::to_string(cell.next_record) + ".txt");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw ConformanceError(std::string("cannot make a pipe: ") + std::strerror(errno));
  std::vector<std::string> args = options.child_command;
  for (const std::string& a : {options.report_copy.string(), options.root.string(), std::string("--onnxruntime"),
                               runtime.library.string(), std::string("--cell-dir"), cell.dir.string(),
                               std::string("--first"), std::to_string(cell.next_record)}) {
    args.push_back(a);
  }
  for (const std::string& a : settings_arguments(choice.settings)) args.push_back(a);
  pid_t pid = -1;
  int rc = 0;
  try {
    pid = spawn_in_own_group(args,
                             {ChildFd::open(0, "/dev/null", O_RDONLY), ChildFd::copy(1, fds[1]),
                              ChildFd::open(2, child->stderr_file.string(), O_WRONLY | O_CREAT | O_TRUNC)},
                             nullptr, false);
  } catch (const std::system_error& e) {
    rc = e.code().value();
  }
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw ConformanceError("cannot start the cell process " + args.front() + ": " + std::strerror(rc));
  }
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  child->pid = pid;
  child->pipe_fd = fds[0];
  child->exit_fd = open_exit_fd(pid);
  child->started = Clock::now();
  child->deadline = child->started + options.timeout;
  return child;
}

std::string how_it_ended(const Child& child, int status, const CellRunOptions& options) {
  std::string how;
  if (child.timed_out) {
    how = "did not finish within " + python_float_repr(static_cast<double>(options.timeout.count()) / 1000.0) +
          " s and was killed";
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    how = "was killed by signal " + std::to_string(sig) + " (" + (name ? "SIG" + std::string(name) : "?") + ")";
  } else {
    how = "exited with code " + std::to_string(WEXITSTATUS(status));
  }
  return how;
}

// Reads what a finished child wrote; places the record it died in, if it died; says where to go on.
void collect(Child& child, int status, const std::vector<json>& records, const CellChoice& choice,
             const CellRunOptions& options) {
  const RuntimeChoice& runtime = choice.runtime;
  CellState& cell = *child.cell;
  cell.seconds += std::chrono::duration<double>(Clock::now() - child.started).count();
  for (std::size_t i = cell.next_record; i < records.size(); ++i) {
    const auto file = cell.dir / say::record_file_name(i);
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) break;
    const json written = read_strict_json_file(file);
    cell.records[i] = written.at(say::kRecordKey);
    cell.outputs[i] = written.at(say::kOutputsKey);
    const auto kept_folder = cell.dir / say::kept_outputs_name(i);
    if (std::filesystem::exists(kept_folder / kKeptOutputsListing, ec)) {  // a child that died between the two has none
      for (auto& one : read_kept_outputs(kept_folder, sha256_file(file)).records) cell.kept.push_back(std::move(one));
    }
    cell.next_record = i + 1;
  }
  if (cell.next_record >= records.size()) return;
  // The child ended before writing record `next_record`: that record is its failure.
  const std::size_t failed = cell.next_record;
  const bool was_running = child.record == failed && child.phase == say::kSayRun;
  const bool placed = child.record == failed;
  // The k-th run of a record is its k-th input case (parity runs each once, in order).
  const json& cases = records[failed].at(rf::kInputCases);
  std::string running_case;
  if (was_running) {
    running_case = *child.run_index < cases.size() ? cases[*child.run_index].at(rf::case_key::kName).get<std::string>()
                                                   : std::to_string(*child.run_index);
  }
  std::string error = "the process running ONNX Runtime " + cell.version.value_or(runtime.given) + " " +
                      how_it_ended(child, status, options);
  if (!placed) {
    error += " before it began this record";
  } else if (was_running) {
    error += " while running input case " + running_case;
  } else {
    error += child.phase == say::kSaySession ? " while creating the session"
             : child.phase == say::kSayOpen  ? " while opening the runtime"
                                       : " while loading";
  }
  const std::string tail = stderr_tail(child.stderr_file);
  if (!tail.empty()) error += "; its stderr ends: " + tail;
  const FailedExecution failure{cell.version, runtime.library.string(),
                                was_running ? FailureClass::runtime_error : FailureClass::load_error, error,
                                running_case};
  cell.records[failed] = failed_execution_record(record_with_settings(records[failed], choice.settings), failure);
  cell.outputs[failed] = json::array();
  cell.next_record = failed + 1;
}

MatrixCell finished_cell(const CellState& cell, const CellChoice& choice, const std::vector<json>& records) {
  const RuntimeChoice& runtime = choice.runtime;
  MatrixCell out;
  out.settings = choice.settings;
  out.version = cell.version ? *cell.version
                : runtime.version ? *runtime.version
                                  : version_in_file_name(runtime.library).value_or(runtime.library.filename().string());
  out.library_sha256 = library_sha256(runtime.library);
  out.outputs.version = out.name();
  out.kept = cell.kept;
  out.seconds = std::round(cell.seconds * 1000.0) / 1000.0;  // milliseconds are all a balance needs
  for (std::size_t i = 0; i < records.size(); ++i) {
    out.records.push_back(*cell.records[i]);
    const std::string profile = out.records.back().at(rf::kProfile).get<std::string>();
    json wrapped{{profile, cell.outputs[i]}};
    auto read = outputs_from_json(wrapped, out.name(), "the outputs of record " + std::to_string(i));
    auto& list = out.outputs.profiles[profile];
    for (auto& c : read.profiles[profile]) list.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::vector<std::string> settings_arguments(const CellSettings& settings) {
  if (settings.tested()) return {};
  return {cell_protocol::kSettingsFlag, settings.to_json().dump()};
}

std::string stderr_tail(const std::filesystem::path& file) {
  constexpr std::size_t kShown = 600;
  std::string s;
  try {
    s = read_file_tail(file, kShown + 64, ErrorKind::unreadable);  // room for the blanks trimmed below
  } catch (const Error&) {
    return s;
  }
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.size() > kShown) s = "..." + s.substr(s.size() - kShown);
  return s;
}

std::string library_sha256(const std::filesystem::path& library) {
  try {
    return sha256_file(library);
  } catch (const std::system_error& e) {
    throw ConformanceError("cannot read the library " + library.string() + " to hash it: " + e.code().message());
  }
}

std::vector<MatrixCell> run_cells(const std::vector<CellChoice>& runtimes, const std::vector<json>& records,
                                  const CellRunOptions& options,
                                  const std::function<void(const MatrixCell&)>& on_cell) {
  std::vector<CellState> cells(runtimes.size());
  std::deque<std::size_t> waiting;
  for (std::size_t i = 0; i < runtimes.size(); ++i) {
    cells[i].index = i;
    cells[i].dir = options.work_dir / ("cell-" + std::to_string(i));
    std::filesystem::create_directories(cells[i].dir);
    cells[i].records.resize(records.size());
    cells[i].outputs.resize(records.size());
    waiting.push_back(i);
  }
  std::vector<std::optional<MatrixCell>> done(runtimes.size());
  std::vector<std::unique_ptr<Child>> running;
  const std::size_t jobs = std::max<std::size_t>(1, options.jobs);
  while (!waiting.empty() || !running.empty()) {
    throw_if_interrupted();  // the children die with `running`
    while (!waiting.empty() && running.size() < jobs) {
      CellState& cell = cells[waiting.front()];
      waiting.pop_front();
      running.push_back(spawn_child(cell, runtimes[cell.index], options));
    }
    // Wake for a progress line, a child's exit (its pidfd) or the nearest deadline.
    std::vector<pollfd> fds;
    auto wake = Clock::now() + std::chrono::seconds(1);
    for (auto& c : running) {
      fds.push_back({c->eof ? -1 : c->pipe_fd, POLLIN, 0});
      fds.push_back({c->exit_fd, POLLIN, 0});
      if (c->exit_fd < 0 && c->eof) wake = std::min(wake, Clock::now() + std::chrono::milliseconds(5));
      wake = std::min(wake, c->deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now()).count();
    ::poll(fds.data(), fds.size(), static_cast<int>(std::max<std::int64_t>(0, wait)) + 1);
    for (std::size_t k = 0; k < running.size();) {
      Child& child = *running[k];
      if (!child.eof) read_lines(child);
      int status = 0;
      pid_t reaped = ::waitpid(child.pid, &status, WNOHANG);
      if (reaped == child.pid) read_lines(child);  // the last lines it wrote before it ended
      if (reaped == 0 && Clock::now() >= child.deadline) {
        child.timed_out = true;
        ::kill(-child.pid, SIGKILL);
        while ((reaped = ::waitpid(child.pid, &status, 0)) < 0 && errno == EINTR) {
        }
        read_lines(child);
      }
      if (reaped != child.pid) {
        ++k;
        continue;
      }
      ::kill(-child.pid, SIGKILL);  // anything it left in its group
      child.pid = -1;
      child.close_pipe();
      CellState& cell = *child.cell;
      collect(child, status, records, runtimes[cell.index], options);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      if (cell.next_record < records.size()) {
        waiting.push_front(cell.index);
      } else {
        done[cell.index] = finished_cell(cell, runtimes[cell.index], records);
        if (on_cell) on_cell(*done[cell.index]);
      }
    }
  }
  std::vector<MatrixCell> out;
  for (auto& c : done) out.push_back(std::move(*c));
  return out;
}

}  // namespace nnx::matrix
