//===- ThreadPool.cpp - The kernels' thread pool (nn_rt_parallel_for) -----===//
//
// One process-wide pool (per copy of nn_kernels) of pthreads, created on
// the first parallel loop that needs them. The caller runs chunk 0 itself;
// worker i runs chunk i. Workers spin briefly after a loop (the next kernel
// of a forward usually follows within microseconds), then sleep on a
// condition variable. One loop runs at a time: a caller that finds the pool
// busy (another thread's forward, or a nested loop) runs its loop serially,
// which keeps compiled forwards re-entrant.
//
// Plain pthreads and atomics, no libstdc++: this archive is linked into
// shared objects that promise to need only libc and libm.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include <atomic>
#include <pthread.h>
#include <unistd.h>

namespace {

constexpr int kMaxThreads = 256;

struct Pool {
  pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER; // one loop at a time
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
  pthread_cond_t done = PTHREAD_COND_INITIALIZER;
  int workers = 0; // started so far (guarded by busy)
  std::atomic<uint64_t> generation{0};
  std::atomic<int> remaining{0};
  // The current loop (written under busy before generation moves).
  nn_rt_range_fn fn = nullptr;
  void *ctx = nullptr;
  int64_t n = 0;
  int chunks = 0;
};

Pool pool;
std::atomic<int32_t> numThreads{1};
/// The generation current when worker i was created: the loop it must run
/// first is the next one, even if the thread starts after that began.
uint64_t startGeneration[kMaxThreads];

void runChunk(int chunk) {
  int64_t begin = pool.n * chunk / pool.chunks;
  int64_t end = pool.n * (chunk + 1) / pool.chunks;
  if (begin < end)
    pool.fn(pool.ctx, begin, end);
}

void *workerMain(void *arg) {
  int id = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  uint64_t seen = startGeneration[id];
  for (;;) {
    // Spin ~tens of microseconds, then sleep until the next loop.
    uint64_t now = seen;
    for (int spin = 0; spin < 20000 && now == seen; ++spin) {
      __builtin_ia32_pause();
      now = pool.generation.load(std::memory_order_acquire);
    }
    if (now == seen) {
      pthread_mutex_lock(&pool.mutex);
      while ((now = pool.generation.load(std::memory_order_acquire)) == seen)
        pthread_cond_wait(&pool.wake, &pool.mutex);
      pthread_mutex_unlock(&pool.mutex);
    }
    seen = now;
    if (id < pool.chunks)
      runChunk(id);
    // Every started worker checks in, busy or not, so that none can still
    // be reading this loop's fields when the next loop writes them.
    if (pool.remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&pool.mutex);
      pthread_cond_signal(&pool.done);
      pthread_mutex_unlock(&pool.mutex);
    }
  }
  return nullptr;
}

} // namespace

extern "C" void nn_rt_set_num_threads(int32_t n) {
  if (n <= 0)
    n = static_cast<int32_t>(sysconf(_SC_NPROCESSORS_ONLN));
  if (n > kMaxThreads)
    n = kMaxThreads;
  numThreads.store(n < 1 ? 1 : n, std::memory_order_relaxed);
}

extern "C" int32_t nn_rt_get_num_threads(void) {
  return numThreads.load(std::memory_order_relaxed);
}

extern "C" void nn_rt_parallel_for(int64_t n, nn_rt_range_fn fn, void *ctx) {
  int64_t threads = nn_rt_get_num_threads();
  if (threads > n)
    threads = n;
  if (threads <= 1 || pthread_mutex_trylock(&pool.busy) != 0) {
    if (n > 0)
      fn(ctx, 0, n);
    return;
  }
  while (pool.workers < threads - 1) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int id = pool.workers + 1;
    startGeneration[id] = pool.generation.load(std::memory_order_relaxed);
    int rc = pthread_create(&thread, &attr, workerMain,
                            reinterpret_cast<void *>(intptr_t(id)));
    pthread_attr_destroy(&attr);
    if (rc != 0)
      break;
    ++pool.workers;
  }
  if (threads - 1 > pool.workers)
    threads = pool.workers + 1; // could not start them all
  pool.fn = fn;
  pool.ctx = ctx;
  pool.n = n;
  pool.chunks = static_cast<int>(threads);
  pool.remaining.store(pool.workers, std::memory_order_relaxed);
  pthread_mutex_lock(&pool.mutex);
  pool.generation.fetch_add(1, std::memory_order_acq_rel);
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.mutex);

  runChunk(0);
  if (pool.remaining.load(std::memory_order_acquire) != 0) {
    for (int spin = 0; spin < 100000 &&
                       pool.remaining.load(std::memory_order_acquire) != 0;
         ++spin)
      __builtin_ia32_pause();
    pthread_mutex_lock(&pool.mutex);
    while (pool.remaining.load(std::memory_order_acquire) != 0)
      pthread_cond_wait(&pool.done, &pool.mutex);
    pthread_mutex_unlock(&pool.mutex);
  }
  pthread_mutex_unlock(&pool.busy);
}
