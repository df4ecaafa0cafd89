// worker_process.cc — talking to the Python worker over its pipes; contract in worker_process.h.
#include "worker/worker_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "base/child_process.h"
#include "base/error.h"
#include "base/interrupt.h"
#include "worker/worker_answer.h"
#include "worker/worker_pipes.h"
#include "worker/worker_protocol.h"
#include "worker/worker_spawn.h"

namespace nnx {

namespace {

using Clock = std::chrono::steady_clock;
using worker_io::close_fd;
constexpr std::chrono::milliseconds kGracePeriod{2000};
constexpr std::chrono::milliseconds kPollSlice{50};
constexpr std::size_t kChunk = 1 << 16;
constexpr int kMaxChunksPerDrain = 64;  // a fast writer cannot starve the loop

// "SIGSEGV (Segmentation fault)": the signal's name and the system's description of it.
std::string signal_described(int sig) {
  std::string name = signal_text(sig);
  const char* text = sigdescr_np(sig);
  if (text) name += " (" + std::string(text) + ")";
  return name;
}

std::string op_name(const json& req) {
  if (req.is_object() && req.contains("op") && req["op"].is_string()) return "'" + req["op"].get<std::string>() + "'";
  return "the request";
}

}  // namespace

// One request in flight: what is sent, how much of it is written, what of the answer is read, and its bounds
// in time and output.
struct WorkerProcess::Exchange {
  std::string what;                     // "'export'", for messages
  std::vector<std::string> owned;       // the request line and each frame's header
  std::vector<std::string_view> parts;  // the line, then each frame's header and bytes, in order
  std::size_t part = 0;                 // the part being written
  std::size_t written = 0;              // bytes of that part written
  std::optional<json> answer;           // the answer line, once read
  std::optional<FrameReader> frames;    // the frames it announced, while they are read
  bool response_eof = false;
  std::uint64_t output_at_start = 0;  // stdout+stderr bytes seen before this request
  std::chrono::milliseconds timeout{0};
  Clock::time_point deadline;
};

// ---------------------------------------------------------------------------------------------
// the process

WorkerProcess::WorkerProcess(const WorkerCommand& given, WorkerLimits limits) : limits_(std::move(limits)) {
  limits_.max_log_bytes = std::max<std::size_t>(limits_.max_log_bytes, 1);
  limits_.max_response_bytes = std::max<std::size_t>(limits_.max_response_bytes, 1);
  const worker_io::SpawnedWorker spawned = worker_io::spawn_worker(resolve_worker_command(given));
  pid_ = spawned.pid;
  stdin_fd_ = spawned.stdin_fd;
  response_fd_ = spawned.response_fd;
  log_fd_ = spawned.log_fd;
  exit_fd_ = open_exit_fd(pid_);
}

WorkerProcess::~WorkerProcess() {
  close_fd(stdin_fd_);
  if (running()) {
    // After SIGINT/SIGTERM (limits_.interrupt_signal) the worker gets no grace period: its group is killed at once.
    const auto deadline = interrupted() ? Clock::now() : Clock::now() + kGracePeriod;
    while (!has_exited() && Clock::now() < deadline) {
      await_output_or_exit();
      if (log_fd_ >= 0 && drain_log() == Drain::eof) close_fd(log_fd_);
      if (response_fd_ >= 0 && drain_response() == Drain::eof) close_fd(response_fd_);
      if (response_.size() > limits_.max_response_bytes) response_.clear();
    }
    kill_and_reap();
  }
  close_fd(response_fd_);
  close_fd(log_fd_);
  close_fd(exit_fd_);
}

void WorkerProcess::close_input() noexcept { close_fd(stdin_fd_); }

void WorkerProcess::abandon() noexcept {
  close_fd(stdin_fd_);
  close_fd(response_fd_);
  close_fd(log_fd_);
  close_fd(exit_fd_);
  if (running()) status_ = 0;  // not this process's child: never waited for, never signalled
}

// Waits at most one poll slice for output on the log or response channel still open, or for the worker's
// exit: a worker that exits wakes it at once (it used to sleep out the slice once both channels had closed,
// 50-100 ms of every run's end).
void WorkerProcess::await_output_or_exit() {
  std::vector<pollfd> fds;
  if (log_fd_ >= 0) fds.push_back({log_fd_, POLLIN, 0});
  if (response_fd_ >= 0) fds.push_back({response_fd_, POLLIN, 0});
  if (exit_fd_ >= 0) fds.push_back({exit_fd_, POLLIN, 0});
  ::poll(fds.empty() ? nullptr : fds.data(), fds.size(), static_cast<int>(kPollSlice.count()));
}

bool WorkerProcess::has_exited() const {
  if (!running()) return true;
  siginfo_t info{};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  return rc < 0 || info.si_pid == pid_;
}

void WorkerProcess::kill_and_reap() {
  if (!running()) return;
  // The worker is not reaped yet, so its pid (= process group id) cannot have been reused.
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int status = 0;
  pid_t rc;
  do {
    rc = ::waitpid(pid_, &status, 0);
  } while (rc < 0 && errno == EINTR);
  status_ = rc == pid_ ? status : -1;
  close_fd(stdin_fd_);
  if (log_fd_ >= 0 && drain_log() == Drain::eof) close_fd(log_fd_);
}

int WorkerProcess::interrupted() const { return limits_.interrupt_signal ? limits_.interrupt_signal() : 0; }

void WorkerProcess::interrupt(int signal) {
  kill_and_reap();
  throw Interrupted(signal);
}

std::string WorkerProcess::exit_description() const {
  std::string text = "worker (pid " + std::to_string(pid_) + ") ";
  if (!status_ || *status_ < 0) return text + "is gone (its exit status is unknown)";
  int status = *status_;
  if (WIFEXITED(status)) return text + "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return text + "was killed by signal " + signal_described(WTERMSIG(status));
  return text + "ended with wait status " + std::to_string(status);
}

void WorkerProcess::fail(WorkerError::Kind kind, const std::string& message) {
  kill_and_reap();
  std::string text = message;
  std::string tail = log_tail(5);
  if (!tail.empty()) text += "; last output:\n" + tail;
  throw WorkerError(kind, text);
}

// ---------------------------------------------------------------------------------------------
// its output

void WorkerProcess::append_log(const char* data, std::size_t size) {
  log_.append(data, size);
  if (log_.size() > 2 * limits_.max_log_bytes) {
    std::size_t excess = log_.size() - limits_.max_log_bytes;
    log_.erase(0, excess);
    log_dropped_ += excess;
  }
}

WorkerProcess::Drain WorkerProcess::drain_log() {
  char buf[kChunk];
  for (int chunks = 0; chunks < kMaxChunksPerDrain; ++chunks) {
    ssize_t n = ::read(log_fd_, buf, sizeof buf);
    if (n > 0) {
      append_log(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return Drain::eof;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? Drain::open : Drain::eof;
  }
  return Drain::open;
}

WorkerProcess::Drain WorkerProcess::drain_response() {
  char buf[kChunk];
  for (int chunks = 0; chunks < kMaxChunksPerDrain; ++chunks) {
    ssize_t n = ::read(response_fd_, buf, sizeof buf);
    if (n > 0) {
      response_.append(buf, static_cast<std::size_t>(n));
      if (response_.size() > limits_.max_response_bytes + 1) return Drain::open;  // the caller enforces the limit
      continue;
    }
    if (n == 0) return Drain::eof;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK ? Drain::open : Drain::eof;
  }
  return Drain::open;
}

std::string WorkerProcess::log_tail(std::size_t max_lines) const {
  std::string_view text(log_);
  if (text.size() > limits_.max_log_bytes) text.remove_prefix(text.size() - limits_.max_log_bytes);
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (max_lines == 0 || text.empty()) return {};
  std::size_t start = text.size();
  for (std::size_t lines = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++lines == max_lines) break;
  }
  return std::string(text.substr(start));
}

// ---------------------------------------------------------------------------------------------
// one request

json WorkerProcess::request(const json& req) { return request(req, default_worker_timeout()); }

json WorkerProcess::request(const json& req, std::chrono::milliseconds timeout) {
  return exchange(req, {}, timeout).body;
}

WorkerReply WorkerProcess::exchange(const json& req, const std::vector<const Tensor*>& tensors,
                                    std::chrono::milliseconds timeout) {
  if (!running()) throw WorkerError(WorkerError::Kind::died, exit_description() + "; it takes no more requests");
  Exchange x;
  x.what = op_name(req);
  x.owned.reserve(1 + tensors.size());
  if (tensors.empty()) {
    x.owned.push_back(req.dump() + "\n");
  } else {
    json line = req;
    line[worker_protocol::kFrames] = tensors.size();
    x.owned.push_back(line.dump() + "\n");
  }
  x.parts.push_back(x.owned.back());
  for (const Tensor* t : tensors) {
    x.owned.push_back(frame_header(wire_dtype(t->dtype), t->shape, t->bytes.size()));
    x.parts.push_back(x.owned.back());
    x.parts.emplace_back(reinterpret_cast<const char*>(t->bytes.data()), t->bytes.size());
  }
  x.output_at_start = log_dropped_ + log_.size();
  x.timeout = timeout;
  x.deadline = Clock::now() + timeout;
  for (;;) {
    if (take_answer(x)) return WorkerReply{std::move(*x.answer), x.frames->take()};
    check_bounds(x);
    if (answer_after_exit(x)) continue;
    const auto now = Clock::now();
    if (now >= x.deadline) {
      fail(WorkerError::Kind::timed_out, "worker did not answer " + x.what + " within " +
                                             std::to_string(x.timeout.count()) + " ms; its process group was killed");
    }
    const auto slice = std::min<Clock::duration>(x.deadline - now, kPollSlice);
    pump(x, static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
    if (x.response_eof && !take_answer(x)) finish_without_answer(x);
  }
}

// The whole request is written (or the worker closed its stdin): an answer may be taken.
bool WorkerProcess::request_sent(const Exchange& x) const { return x.part == x.parts.size() || stdin_fd_ < 0; }

// Reads the answer line (parsed), then the frames it announces, from what has arrived; true once both are
// complete. A refused line or frame header kills the worker's group (the stream is out of step).
bool WorkerProcess::take_answer(Exchange& x) {
  if (!request_sent(x)) return false;
  const auto newline = x.answer ? std::string::npos : response_.find('\n');
  if (!x.answer && newline == std::string::npos) return false;
  if (!x.answer && newline > limits_.max_response_bytes) fail_response_too_long(x);
  try {
    if (!x.answer) {
      x.answer = parse_worker_answer(std::string_view(response_).substr(0, newline), x.what);
      response_.erase(0, newline + 1);
      const auto count = x.answer->find(worker_protocol::kFrames);
      if (count != x.answer->end() && (!count->is_number_integer() || count->get<std::int64_t>() < 0)) {
        throw WorkerError(WorkerError::Kind::malformed, "the answer to " + x.what + " has \"frames\": " +
                                                            count->dump() + ", not a count of tensor frames");
      }
      const auto frames = count == x.answer->end() ? 0 : static_cast<std::size_t>(count->get<std::int64_t>());
      x.frames.emplace(frames, limits_.frames);
    }
    response_.erase(0, x.frames->feed(response_));
  } catch (const WorkerError& e) {
    fail(e.kind(), e.what());  // the process group is killed first
  }
  return x.frames->done();
}

// The answer and output bounds, then an interruption.
void WorkerProcess::check_bounds(const Exchange& x) {
  if (response_.size() > limits_.max_response_bytes) fail_response_too_long(x);
  if (const std::uint64_t output = log_dropped_ + log_.size() - x.output_at_start; output > limits_.max_output_bytes) {
    fail(WorkerError::Kind::output_limit,
         "worker wrote " + std::to_string(output) + " bytes on stdout/stderr while answering " + x.what +
             ", more than the bound of " + std::to_string(limits_.max_output_bytes) +
             " bytes (NNX_WORKER_MAX_OUTPUT_BYTES); its process group was killed");
  }
  if (const int sig = interrupted()) interrupt(sig);  // SIGINT/SIGTERM: stop the worker's group, then unwind
}

// False while the worker runs; true when it exited after writing its answer (take it); else it died.
bool WorkerProcess::answer_after_exit(Exchange& x) {
  if (!has_exited()) return false;
  if (log_fd_ >= 0) drain_log();
  if (response_fd_ >= 0 && drain_response() == Drain::eof) close_fd(response_fd_);
  if (take_answer(x)) return true;
  kill_and_reap();
  fail(WorkerError::Kind::died, exit_description() + " before answering " + x.what);
}

// Waits up to wait_ms for the pipes, then writes what the worker's stdin takes and drains what it wrote.
void WorkerProcess::pump(Exchange& x, int wait_ms) {
  std::vector<pollfd> fds;
  if (stdin_fd_ >= 0 && !request_sent(x)) fds.push_back({stdin_fd_, POLLOUT, 0});
  if (!x.response_eof && response_fd_ >= 0) fds.push_back({response_fd_, POLLIN, 0});
  if (log_fd_ >= 0) fds.push_back({log_fd_, POLLIN, 0});
  int ready = ::poll(fds.data(), fds.size(), wait_ms);
  if (ready < 0 && errno != EINTR)
    fail(WorkerError::Kind::died, std::string("poll failed while waiting for the worker: ") + errno_text(errno));
  if (ready <= 0) return;
  for (const pollfd& p : fds) {
    if (p.revents == 0) continue;
    if (p.fd == stdin_fd_) {
      send_payload(x);
    } else if (p.fd == response_fd_) {
      if (drain_response() == Drain::eof) x.response_eof = true;
    } else if (p.fd == log_fd_) {
      if (drain_log() == Drain::eof) close_fd(log_fd_);
    }
  }
}

void WorkerProcess::send_payload(Exchange& x) {
  while (x.part < x.parts.size()) {
    const std::string_view part = x.parts[x.part];
    if (x.written == part.size()) {
      ++x.part;
      x.written = 0;
      continue;
    }
    ssize_t n = worker_io::write_without_sigpipe(stdin_fd_, part.data() + x.written,
                                                 std::min(part.size() - x.written, kChunk));
    if (n > 0) {
      x.written += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) close_fd(stdin_fd_);  // EPIPE: it stopped reading
      break;
    }
  }
}

// fd 3 closed without a full answer: the worker is exiting. Wait for it (bounded by the deadline).
void WorkerProcess::finish_without_answer(const Exchange& x) {
  close_fd(response_fd_);
  while (!has_exited() && Clock::now() < x.deadline && !interrupted()) {
    await_output_or_exit();
    if (log_fd_ >= 0 && drain_log() == Drain::eof) close_fd(log_fd_);
  }
  if (const int sig = interrupted(); sig && !has_exited()) interrupt(sig);
  if (!has_exited())
    fail(WorkerError::Kind::timed_out, "worker closed its response channel without answering " + x.what +
                                           " and did not exit in time; its process group was killed");
  kill_and_reap();
  fail(WorkerError::Kind::died, exit_description() + " before answering " + x.what);
}

void WorkerProcess::fail_response_too_long(const Exchange& x) {
  fail(WorkerError::Kind::output_limit, "response to " + x.what + " exceeds " +
                                            std::to_string(limits_.max_response_bytes) +
                                            " bytes; first bytes: " + quote_bytes(response_, 64));
}

}  // namespace nnx
