#include "base/sha256_behind.h"

#include <utility>

namespace nnx {

Sha256Behind::Sha256Behind() : thread_([this] { serve(); }) {}

Sha256Behind::~Sha256Behind() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Sha256Behind::serve() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return pending_ != nullptr || stopping_; });
    if (pending_ == nullptr) return;  // stopping, nothing left
    const void* data = std::exchange(pending_, nullptr);
    const std::size_t size = pending_size_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      hash_.update(data, size);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    pending_size_ = 0;
    if (failure && !failure_) failure_ = failure;
    changed_.notify_all();
  }
}

// Until the thread holds no chunk (pending_size_ is cleared only once its chunk is hashed).
void Sha256Behind::wait_idle(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [this] { return pending_ == nullptr && pending_size_ == 0; });
  if (failure_) std::rethrow_exception(failure_);
}

void Sha256Behind::update(const void* data, std::size_t size) {
  if (size == 0) return;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    wait_idle(lock);
    pending_ = data;
    pending_size_ = size;
  }
  changed_.notify_all();
}

std::string Sha256Behind::hex_digest() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_idle(lock);
  return hash_.hex_digest();
}

}  // namespace nnx
