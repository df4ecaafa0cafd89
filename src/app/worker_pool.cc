// The process's warm exporter workers; contract in worker_pool.h.
#include "app/worker_pool.h"

#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "worker/worker_identity.h"

namespace nnx {
namespace {

using Clock = std::chrono::steady_clock;

struct IdleWorker {
  std::unique_ptr<ExporterClient> client;
  Clock::time_point idle_since;
};

// The one pool of the process. Never destroyed (its reaper thread may outlive static destructors); the
// atexit handler stops its workers and its thread.
class WorkerPool {
 public:
  static WorkerPool& instance() {
    static WorkerPool* pool = new WorkerPool();
    return *pool;
  }

  std::unique_ptr<ExporterClient> take(const std::string& identity) {
    std::vector<std::unique_ptr<ExporterClient>> dead;
    std::unique_ptr<ExporterClient> found;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = idle_.begin(); it != idle_.end();) {
        if (!it->client->alive()) {
          dead.push_back(std::move(it->client));
          it = idle_.erase(it);
        } else if (!found && it->client->identity() == identity) {
          found = std::move(it->client);
          it = idle_.erase(it);
        } else {
          ++it;
        }
      }
    }
    stop_all(std::move(dead));  // outside the lock: a worker's stop waits for it
    return found;
  }

  void keep(std::unique_ptr<ExporterClient> worker) {
    if (!worker) return;
    std::vector<std::unique_ptr<ExporterClient>> stopped;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!worker->alive() || idle_seconds_ <= 0.0) {
        stopped.push_back(std::move(worker));
      } else {
        worker->clear_log();
        idle_.push_back({std::move(worker), Clock::now()});
        while (idle_.size() > kMaxIdleWorkers) {
          stopped.push_back(std::move(idle_.front().client));
          idle_.pop_front();
        }
        start_reaper_locked();
        changed_->notify_all();
      }
    }
    stop_all(std::move(stopped));
  }

  void close() {
    std::vector<std::unique_ptr<ExporterClient>> stopped;
    std::thread* reaper = nullptr;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      for (auto& idle : idle_) stopped.push_back(std::move(idle.client));
      idle_.clear();
      closing_ = true;
      reaper = reaper_;
      reaper_ = nullptr;
      changed_->notify_all();
    }
    if (reaper != nullptr) {
      reaper->join();  // close never runs on the reaper's own thread: it only stops workers
      delete reaper;
    }
    stop_all(std::move(stopped));
    const std::lock_guard<std::mutex> lock(mutex_);
    closing_ = false;
  }

  void set_idle_seconds(double seconds) {
    if (!(seconds >= 0.0)) throw std::invalid_argument("a worker's idle timeout must be at least 0 seconds");
    const std::lock_guard<std::mutex> lock(mutex_);
    idle_seconds_ = seconds;
    changed_->notify_all();
  }
  double idle_seconds() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return idle_seconds_;
  }
  std::size_t idle_count() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return idle_.size();
  }

 private:
  WorkerPool() {
    ::pthread_atfork(&WorkerPool::before_fork, &WorkerPool::after_fork_in_parent, &WorkerPool::after_fork_in_child);
    std::atexit([] { WorkerPool::instance().close(); });
  }

  // Stops workers side by side: each told to exit first, then each waited for.
  static void stop_all(std::vector<std::unique_ptr<ExporterClient>> workers) {
    for (auto& w : workers) {
      if (w) w->begin_stop();
    }
    workers.clear();
  }

  void start_reaper_locked() {
    if (reaper_ != nullptr || closing_) return;
    try {
      reaper_ = new std::thread([this] { reap(); });
    } catch (const std::system_error&) {
      reaper_ = nullptr;  // no thread to be had: idle workers then stop at the next call, close or exit
    }
  }

  // The reaper thread: stops each worker idle for longer than the timeout, and ends with the pool's close.
  void reap() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!closing_) {
      std::vector<std::unique_ptr<ExporterClient>> expired;
      const Clock::time_point now = Clock::now();
      const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(idle_seconds_));
      std::optional<Clock::time_point> next;
      for (auto it = idle_.begin(); it != idle_.end();) {
        if (now - it->idle_since >= limit) {
          expired.push_back(std::move(it->client));
          it = idle_.erase(it);
        } else {
          next = next ? std::min(*next, it->idle_since + limit) : it->idle_since + limit;
          ++it;
        }
      }
      if (!expired.empty()) {
        lock.unlock();
        stop_all(std::move(expired));
        lock.lock();
        continue;
      }
      if (next) {
        changed_->wait_until(lock, *next);
      } else {
        changed_->wait(lock);
      }
    }
  }

  // fork(): the pool's lock is held across it, so the child finds the pool in a whole state.
  static void before_fork() { instance().mutex_.lock(); }
  static void after_fork_in_parent() { instance().mutex_.unlock(); }
  // In the child: the parent's workers are forgotten without a signal; its reaper thread does not exist here
  // (its object is left behind, never joined), nor does any waiter of the old condition variable.
  static void after_fork_in_child() {
    WorkerPool& pool = instance();
    for (auto& idle : pool.idle_) {
      idle.client->abandon();
      idle.client.reset();
    }
    pool.idle_.clear();
    pool.reaper_ = nullptr;
    pool.changed_ = new std::condition_variable();  // the parent's may hold a waiter that is not here
    pool.closing_ = false;
    pool.mutex_.unlock();
  }

  std::mutex mutex_;
  std::condition_variable* changed_ = new std::condition_variable();
  std::deque<IdleWorker> idle_;
  std::thread* reaper_ = nullptr;
  double idle_seconds_ = kDefaultWorkerIdleSeconds;
  bool closing_ = false;
};

}  // namespace

std::unique_ptr<ExporterClient> take_warm_worker(const WorkerCommand& command, std::chrono::milliseconds timeout) {
  return WorkerPool::instance().take(worker_identity(command, default_worker_limits(), timeout));
}

void keep_warm_worker(std::unique_ptr<ExporterClient> worker) { WorkerPool::instance().keep(std::move(worker)); }

void close_warm_workers() { WorkerPool::instance().close(); }

void set_warm_worker_idle_seconds(double seconds) { WorkerPool::instance().set_idle_seconds(seconds); }

double warm_worker_idle_seconds() { return WorkerPool::instance().idle_seconds(); }

std::size_t idle_warm_workers() { return WorkerPool::instance().idle_count(); }

}  // namespace nnx
