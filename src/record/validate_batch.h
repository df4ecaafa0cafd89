// Validating many records at once (doc/record-format.md §6): `ValidationQueue` takes records one by one,
// in any order, each recorded flat (base/json_tape.h), and validates them on worker threads while the
// caller goes on recording the next ones (the Python front end reads its objects under the GIL meanwhile;
// python/bindings.cc). A worker validates the record where it lies on its tape, with every rule
// (record_problems of a JsonView: base/json_view.h); no value is built.
//
// At most `capacity` records wait at once: `push` validates the record on the calling thread when the
// queue is full, so memory stays bounded and no thread idles. A validated record's tape is kept for
// `spare_tape`, so that the caller records the next record into memory already allocated instead of
// growing a new tape; the tape kept longest is given out first, so that the caller rarely writes into
// memory a worker has just read (whose cache lines the worker's core would first have to give up).
// `finish` validates what still waits beside the workers, waits for all and returns each record's
// problems by the index it was pushed with. The destructor stops and joins the workers (a caller that
// gives up half-way by throwing leaves nothing running).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_tape.h"

namespace nnx {

class ValidationQueue {
 public:
  using Problems = std::vector<std::string>;

  // `count` results (indexes 0..count-1); `workers` threads (0: none, `push` validates in place).
  ValidationQueue(std::size_t count, unsigned workers, std::size_t capacity = 256);
  ~ValidationQueue();
  ValidationQueue(const ValidationQueue&) = delete;
  ValidationQueue& operator=(const ValidationQueue&) = delete;

  void push(std::size_t index, JsonTape record);
  std::vector<Problems> finish();
  // An empty tape to record the next record into: one a validated record left, or a new one.
  JsonTape spare_tape();

  // The workers a batch of `count` records is worth, beside the caller who records them: the hardware
  // threads but the caller's (at least one), none for a few records.
  static unsigned workers_for(std::size_t count);

 private:
  void work();
  void stop();
  void keep_spare(JsonTape tape);

  std::vector<Problems> results_;
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<std::size_t, JsonTape>> waiting_;
  std::deque<JsonTape> spare_;  // validated records' tapes, oldest first, at most capacity_
  bool closing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace nnx
