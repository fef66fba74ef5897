//===- ThreadPool.cpp - The kernels' thread pool (nn_rt_parallel_for) -----===//
//
// One process-wide pool (per copy of nn_kernels) of pthreads, created on
// the first parallel loop that needs them. One loop runs at a time: a caller
// that finds the pool busy (another thread's forward, or a nested loop) runs
// its loop serially, which keeps compiled forwards re-entrant.
//
// Work is claimed, not assigned. [0, n) is cut into one contiguous share
// per participant (the caller is participant 0, worker i participant i).
// Each takes its own share front to back, half of what is left at a time,
// so on a quiet machine a thread runs its own contiguous range in a few
// calls, as a static split would; when it runs out it takes from another
// share in the same way. So a worker that is slow to wake (milliseconds
// when its CPU is taken by another process on a shared machine) holds no
// work: the others take its share, and the caller only ever waits for
// claims that are already running, never for a thread to be scheduled.
//
// Waiting spins with pause for a bounded time (the next kernel of a forward
// usually follows within microseconds), then sleeps on a futex, so an idle
// pool never burns a CPU. The words that different threads write (each
// share's cursor, each worker's doorbell, the count of active workers) sit
// on cache lines of their own, apart from the loop's read-mostly fields.
//
// A loop whose pieces take the kernels' kept per-thread buffers
// (nn_rt::parallelFor with a LoopScratch) has the caller grow them for
// every participant before the loop opens. A worker's buffers are made by
// the caller that starts it, and between loops only a caller holding the
// pool touches them; the open/active handshake below orders those writes
// before the worker's reads. So no piece allocates, whichever thread claims
// it: sizing in the piece instead, a worker slow to wake would leave every
// piece to the caller for many calls and allocate in whichever call it
// first caught one.
//
// Workers are joinable and live until the pool is retired: every compiled
// shared object carries its own copy of this archive and of its pool, and
// dlclose unmaps their code, so unloading (retirePool, from the archive's
// destructor in Workspace.cpp) stops and joins them first.
//
// Plain pthreads, futexes and atomics, no libstdc++: this archive is linked
// into shared objects that promise to need only libc and libm.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <atomic>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace {

constexpr int kMaxThreads = 256;
constexpr int kCacheLine = 64;

/// How long a worker spins for the next loop before it sleeps, and how long
/// the caller spins for the claims still running before it sleeps. A
/// forward's kernels follow one another within microseconds; a sleeping
/// worker costs a futex wake-up (tens of microseconds, milliseconds when the
/// machine is loaded) on the next loop.
constexpr int64_t kWorkerSpinNs = 300 * 1000;
constexpr int64_t kCallerSpinNs = 100 * 1000;

/// A claim is half of what is left of a share, but at least this fraction
/// of the share. Each claim is one call of the loop body, which has a fixed
/// cost (a GEMM streams its packed B once per call); halving keeps the calls
/// few (a thread runs its own share in about log2(kMinClaimDivisor) + 1),
/// and the small last claims let the threads finish together. Measured on
/// 1024^3 on 2 threads: the caller's wait for the worker's last claim was
/// 6-9 us per call at 1/32, 20-43 us at 1/8, 43-49 us with fixed eighths,
/// 80-170 us with the static halves this pool had before.
constexpr int64_t kMinClaimDivisor = 32;

int64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// Spins with pause until `done()` or `ns` have passed; returns done().
template <typename Done> bool spinFor(int64_t ns, Done done) {
  if (done())
    return true;
  int64_t deadline = nowNs() + ns;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      __builtin_ia32_pause();
      if (done())
        return true;
    }
    if (nowNs() >= deadline)
      return done();
  }
}

/// Sleeps while *word == expected (spurious returns are fine: callers loop).
void futexWait(std::atomic<uint32_t> &word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAIT_PRIVATE,
          expected, nullptr, nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t> &word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE,
          kMaxThreads, nullptr, nullptr, 0);
}

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "futexes operate on the atomic's own 32-bit word");

/// One participant's share [next, end) of the current loop.
struct alignas(kCacheLine) Share {
  std::atomic<int64_t> next{0};
  int64_t end = 0;
  int64_t grain = 1; // the least a claim takes (see kMinClaimDivisor)
};

/// A worker's doorbell: the caller counts `rings` up once per loop the
/// worker is to join, and wakes it if `sleeping`.
struct alignas(kCacheLine) Doorbell {
  std::atomic<uint32_t> rings{0};
  std::atomic<uint32_t> sleeping{0};
};

struct Pool {
  std::atomic<bool> busy{false};    // one loop at a time
  std::atomic<bool> retired{false}; // busy for good (retirePool)
  int workers = 0;                  // started so far (written under busy)
  /// Set once, by retirePool: a worker rung with it set returns.
  std::atomic<bool> stopping{false};

  /// 1 while the current loop has shares left to claim. Workers join only
  /// an open loop, and the fields below stay fixed until it is closed and
  /// no worker is active.
  alignas(kCacheLine) std::atomic<uint32_t> open{0};
  nn_rt_range_fn fn = nullptr;
  void *ctx = nullptr;
  int participants = 0;

  /// Workers inside the current loop; the caller returns when it is 0 and
  /// the loop is closed. Also the futex the caller sleeps on.
  alignas(kCacheLine) std::atomic<uint32_t> active{0};
  alignas(kCacheLine) std::atomic<uint32_t> callerSleeping{0};

  Share shares[kMaxThreads];
  Doorbell doorbells[kMaxThreads];
  /// Worker i's kept buffers and thread (index 0, the caller's, unused).
  nn_rt::ThreadBuffers *buffers[kMaxThreads] = {};
  pthread_t threads[kMaxThreads] = {};
};

Pool pool;
std::atomic<int32_t> numThreads{1};

/// Claims half of what is left of `share` (at least its grain): [begin,
/// end), or false when it is all taken.
bool claim(Share &share, int64_t &begin, int64_t &end) {
  int64_t next = share.next.load(std::memory_order_relaxed);
  for (;;) {
    int64_t left = share.end - next;
    if (left <= 0)
      return false;
    int64_t take = left - left / 2; // half, rounded up
    if (take < share.grain)
      take = share.grain < left ? share.grain : left;
    if (share.next.compare_exchange_weak(next, next + take,
                                         std::memory_order_relaxed)) {
      begin = next, end = next + take;
      return true;
    }
  }
}

/// Runs claims of participant `self`'s share, then of the others' shares,
/// until every share is taken.
void runClaims(int self) {
  int count = pool.participants;
  for (int i = 0; i < count; ++i) {
    Share &share = pool.shares[(self + i) % count];
    int64_t begin, end;
    while (claim(share, begin, end))
      pool.fn(pool.ctx, begin, end);
  }
}

void *workerMain(void *arg) {
  int id = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  // Failing that (out of memory), its pieces size their own buffers.
  nn_rt::adoptThreadBuffers(pool.buffers[id]);
  Doorbell &bell = pool.doorbells[id];
  uint32_t seen = 0; // the caller rings only after this thread was created
  for (;;) {
    // Loads and stores around `sleeping` are seq_cst: the caller rings, then
    // reads `sleeping`; this thread sets it, then reads the bell. One of
    // the two sees the other's store, so no ring is lost.
    auto rung = [&] {
      return bell.rings.load(std::memory_order_seq_cst) != seen;
    };
    if (!spinFor(kWorkerSpinNs, rung)) {
      bell.sleeping.store(1, std::memory_order_seq_cst);
      while (!rung())
        futexWait(bell.rings, seen);
      bell.sleeping.store(0, std::memory_order_relaxed);
    }
    seen = bell.rings.load(std::memory_order_acquire);
    if (pool.stopping.load(std::memory_order_acquire))
      return nullptr;
    // Register, then check that a loop is open: either the caller sees this
    // thread active and waits for it before it touches the loop's fields
    // again, or this thread sees the loop closed and leaves it alone. A
    // worker rung for a loop that is already over may so join the next one,
    // if it is one of its participants.
    pool.active.fetch_add(1, std::memory_order_seq_cst);
    if (pool.open.load(std::memory_order_seq_cst) && id < pool.participants)
      runClaims(id);
    if (pool.active.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        pool.callerSleeping.load(std::memory_order_seq_cst))
      futexWakeAll(pool.active);
  }
}

/// Rings worker `worker`'s doorbell, waking it if it sleeps.
void ring(int worker) {
  Doorbell &bell = pool.doorbells[worker];
  bell.rings.fetch_add(1, std::memory_order_seq_cst);
  if (bell.sleeping.load(std::memory_order_seq_cst))
    futexWakeAll(bell.rings);
}

/// Starts workers until there are `wanted`; returns how many there are.
int startWorkers(int wanted) {
  while (pool.workers < wanted) {
    pthread_t thread;
    int id = pool.workers + 1;
    pool.buffers[id] = nn_rt::createThreadBuffers();
    int rc = pool.buffers[id]
                 ? pthread_create(&thread, nullptr, workerMain,
                                  reinterpret_cast<void *>(intptr_t(id)))
                 : -1;
    if (rc != 0) {
      nn_rt::destroyThreadBuffers(pool.buffers[id]);
      pool.buffers[id] = nullptr;
      break;
    }
    // Named for top -H, perf and debuggers (and found by name in tests),
    // by this thread, so the name is there when the loop that started it
    // returns.
    pthread_setname_np(thread, "nn-worker");
    pool.threads[id] = thread;
    ++pool.workers;
  }
  return pool.workers < wanted ? pool.workers : wanted;
}

/// Takes the pool (for a loop, or to touch the workers' buffers); false
/// when another thread holds it.
bool tryTakePool() {
  return !pool.busy.exchange(true, std::memory_order_acquire);
}

void givePoolBack() { pool.busy.store(false, std::memory_order_release); }

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

void nn_rt::releaseWorkerBuffers() {
  // A loop holds the pool for one kernel's pieces: wait it out.
  while (!tryTakePool()) {
    if (pool.retired.load(std::memory_order_acquire))
      return;
    timespec pauseFor = {0, 100 * 1000};
    nanosleep(&pauseFor, nullptr);
  }
  for (int i = 1; i <= pool.workers; ++i)
    releaseKept(pool.buffers[i]);
  givePoolBack();
}

bool nn_rt::retirePool() {
  if (!tryTakePool())
    return false;
  pool.retired.store(true, std::memory_order_release);
  // No loop is open: a worker rung now finds `stopping` and returns.
  pool.stopping.store(true, std::memory_order_seq_cst);
  for (int i = 1; i <= pool.workers; ++i)
    ring(i);
  for (int i = 1; i <= pool.workers; ++i)
    pthread_join(pool.threads[i], nullptr);
  pool.workers = 0;
  return true;
}

void nn_rt::parallelFor(int64_t n, nn_rt_range_fn fn, void *ctx,
                        const LoopScratch &scratch) {
  int64_t threads = nn_rt_get_num_threads();
  if (threads > n)
    threads = n;
  if (threads <= 1 || !tryTakePool()) {
    if (n > 0)
      fn(ctx, 0, n);
    return;
  }
  int count = startWorkers(static_cast<int>(threads) - 1) + 1;

  // Every participant's kept buffers, grown before any piece is handed out
  // (the caller's too: a worker may take the caller's whole share). Out of
  // memory here, a piece tries again on its own thread.
  for (int i = 1; i < count; ++i)
    reserveScratch(pool.buffers[i], scratch);
  for (int kind = 0; kind < int(Kept::count); ++kind)
    if (scratch.floats[kind] > 0)
      keptBuffer(Kept(kind), scratch.floats[kind]);

  // No worker is inside the loop's fields now: the last loop returned only
  // once none was active, and one that registers later finds it closed.
  pool.fn = fn;
  pool.ctx = ctx;
  pool.participants = count;
  // Shares of n / count, the first n % count one larger (no n * i: n may
  // be near INT64_MAX).
  const int64_t base = n / count, extra = n % count;
  for (int i = 0; i < count; ++i) {
    Share &share = pool.shares[i];
    int64_t size = base + (i < extra);
    int64_t begin = i * base + (i < extra ? i : extra);
    share.end = begin + size;
    share.grain = size / kMinClaimDivisor + (size % kMinClaimDivisor != 0);
    share.next.store(begin, std::memory_order_relaxed);
  }
  pool.open.store(1, std::memory_order_seq_cst);
  for (int i = 1; i < count; ++i)
    ring(i);

  runClaims(0);
  // Every share is taken: close the loop, then wait for the claims still
  // running (and for any worker that registered just before the close).
  pool.open.store(0, std::memory_order_seq_cst);
  auto idle = [] { return pool.active.load(std::memory_order_seq_cst) == 0; };
  if (!spinFor(kCallerSpinNs, idle)) {
    pool.callerSleeping.store(1, std::memory_order_seq_cst);
    for (uint32_t a; (a = pool.active.load(std::memory_order_seq_cst)) != 0;)
      futexWait(pool.active, a);
    pool.callerSleeping.store(0, std::memory_order_relaxed);
  }
  givePoolBack();
}

extern "C" void nn_rt_parallel_for(int64_t n, nn_rt_range_fn fn, void *ctx) {
  nn_rt::parallelFor(n, fn, ctx, nn_rt::LoopScratch{});
}
