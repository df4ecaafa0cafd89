// The process's warm exporter workers: one lifetime rule for every front end (the command line, the C++ API,
// Python; doc/architecture.md, "The worker's lifetime").
//
//  * A call that needs the worker (run, run_profile(s), execute with the torch reference) first asks
//    `take_warm_worker` for an idle one whose identity (worker/worker_identity.h: interpreter, script, the
//    whole environment, bounds, request timeout) equals the one a worker started now would have; null when
//    there is none, and the call starts its own. When the call ends it hands its worker to
//    `keep_warm_worker`: a worker that can still serve waits there for the next call; one that crashed,
//    hung, flooded or was interrupted during the call is stopped (the next call starts a fresh one).
//  * An idle worker stops after `warm_worker_idle_seconds()` without a call (default 120 s; a reaper thread
//    stops it), when more than kMaxIdleWorkers wait (the longest-idle first), on `close_warm_workers()`,
//    and at exit (an atexit handler; Python also calls it from its own atexit). The worker's lifeline
//    (base/child_process.h) ends it when the process dies however it ends.
//  * A child forked from the process (no exec) gets no idle worker: they are forgotten there without a
//    signal (pthread_atfork), so a fork neither inherits nor kills the parent's workers.
//  * Thread-safe: each idle worker serves one call at a time; calls at once each take or start their own.
//  * The ONNX Runtime side stays warm as well: runtime/onnx_runtime.h keeps each opened library's
//    environment for the process; close_warm_workers releases those too.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>

#include "worker/exporter_client.h"

namespace nnx {

inline constexpr std::size_t kMaxIdleWorkers = 2;
inline constexpr double kDefaultWorkerIdleSeconds = 120.0;

std::unique_ptr<ExporterClient> take_warm_worker(const WorkerCommand& command, std::chrono::milliseconds timeout);
void keep_warm_worker(std::unique_ptr<ExporterClient> worker);
// Stops every idle worker (side by side: each is told to exit, then each is waited for) and releases the
// runtimes kept warm. Idempotent; a later call starts workers again.
void close_warm_workers();
// The idle timeout for workers kept from now on (seconds > 0; 0 keeps none: each call stops its own).
void set_warm_worker_idle_seconds(double seconds);
double warm_worker_idle_seconds();
// How many workers wait idle now (tests and `close_warm_workers`' callers).
std::size_t idle_warm_workers();

}  // namespace nnx
