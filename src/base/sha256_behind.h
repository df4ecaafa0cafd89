// SHA-256 on a thread of its own, one chunk behind the caller (base/sha256.h computes it). `update(data, n)`
// waits until the chunk handed over before is hashed, then hands over this one and returns at once: the
// caller must leave those bytes unchanged until its next `update` or `hex_digest`, and may meanwhile read,
// copy or keep them. `hex_digest` waits for the last chunk. An OpenSSL failure on the thread is thrown by
// the next call. Used where a large file is read into memory and hashed (artifacts/artifact_folder.cc), so
// the reads and the copy overlap the hash on a second core (BENCHMARKS.md, "Module profiles").
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "base/sha256.h"

namespace nnx {

class Sha256Behind {
 public:
  Sha256Behind();
  ~Sha256Behind();  // waits for the thread; a pending chunk is hashed first
  Sha256Behind(const Sha256Behind&) = delete;
  Sha256Behind& operator=(const Sha256Behind&) = delete;

  void update(const void* data, std::size_t size);
  std::string hex_digest();

 private:
  void wait_idle(std::unique_lock<std::mutex>& lock);
  void serve();

  Sha256 hash_;
  std::mutex mutex_;
  std::condition_variable changed_;
  const void* pending_ = nullptr;
  std::size_t pending_size_ = 0;
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::thread thread_;  // last: started once every member above exists
};

}  // namespace nnx
