#include "record/validate_batch.h"

#include <algorithm>

#include "record/validate_record.h"

namespace nnx {

ValidationQueue::ValidationQueue(std::size_t count, unsigned workers, std::size_t capacity)
    : results_(count), capacity_(std::max<std::size_t>(capacity, 1)) {
  threads_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
}

ValidationQueue::~ValidationQueue() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    waiting_.clear();  // given up (finish() was not reached): what waits is not validated
  }
  stop();
}

namespace {

// record_problems never throws but for memory; a record that cannot be validated says so.
std::vector<std::string> problems_of(const JsonTape& record) {
  try {
    return record_problems(JsonView(record));
  } catch (const std::exception& e) {
    return {std::string("record: could not be validated: ") + e.what()};
  }
}

}  // namespace

unsigned ValidationQueue::workers_for(std::size_t count) {
  constexpr std::size_t kRecordsPerWorker = 64;  // below this a thread costs more than it saves
  const unsigned beside_caller = std::max(2u, std::thread::hardware_concurrency()) - 1;
  return static_cast<unsigned>(std::min<std::size_t>(beside_caller, count / kRecordsPerWorker));
}

JsonTape ValidationQueue::spare_tape() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (spare_.empty()) return JsonTape();
  JsonTape tape = std::move(spare_.front());
  spare_.pop_front();
  return tape;
}

void ValidationQueue::keep_spare(JsonTape tape) {
  tape.clear();  // its memory kept
  const std::lock_guard<std::mutex> lock(mutex_);
  if (spare_.size() < capacity_) spare_.push_back(std::move(tape));
}

void ValidationQueue::push(std::size_t index, JsonTape record) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!threads_.empty() && waiting_.size() < capacity_) {
      waiting_.emplace_back(index, std::move(record));
      lock.unlock();
      ready_.notify_one();
      return;
    }
  }
  results_.at(index) = problems_of(record);  // full (or no workers): the caller helps
  keep_spare(std::move(record));
}

void ValidationQueue::work() {
  while (true) {
    std::pair<std::size_t, JsonTape> item;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(lock, [this] { return closing_ || !waiting_.empty(); });
      if (waiting_.empty()) return;  // closing and drained
      item = std::move(waiting_.front());
      waiting_.pop_front();
    }
    results_[item.first] = problems_of(item.second);  // each index is written by one thread only
    keep_spare(std::move(item.second));
  }
}

void ValidationQueue::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

std::vector<ValidationQueue::Problems> ValidationQueue::finish() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  ready_.notify_all();
  if (!threads_.empty()) work();  // the caller drains what still waits beside the workers
  stop();
  return std::move(results_);
}

}  // namespace nnx
