//===- ThreadPoolTest.cpp - nn_rt_parallel_for's claims and waits ---------===//
//
// The pool's contract (nn/Runtime/Kernels.h): every index of [0, n) is run
// exactly once, in contiguous non-empty ranges, before the call returns;
// a nested or concurrent call runs serially on its own thread; work is
// claimed, so a participant that is held up holds no work but the range it
// is running. Also the pool's two ways to wait: back-to-back loops while
// the workers spin, and loops after the workers went to sleep (and that
// idle workers do sleep). And nn_rt::parallelFor's promise to kernels: every
// thread that runs a piece finds the loop's kept buffers already sized.
//
//===----------------------------------------------------------------------===//

#include "Kernels/KernelsInternal.h"
#include "nn/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

class ThreadPoolTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { nn_rt_set_num_threads(GetParam()); }
  void TearDown() override { nn_rt_set_num_threads(1); }
};

/// Counts the runs of each index and checks each range it is given.
struct Coverage {
  explicit Coverage(int64_t n) : hits(n) {}
  std::vector<std::atomic<int>> hits;
  std::atomic<int> badRanges{0};

  static void run(void *ctx, int64_t begin, int64_t end) {
    auto *c = static_cast<Coverage *>(ctx);
    if (begin < 0 || begin >= end || end > int64_t(c->hits.size()))
      c->badRanges++;
    for (int64_t i = begin; i < end && i < int64_t(c->hits.size()); ++i)
      c->hits[i].fetch_add(1, std::memory_order_relaxed);
  }
  /// Every index run exactly `times` times, every range valid.
  void expectEach(int times) const {
    EXPECT_EQ(badRanges.load(), 0);
    for (size_t i = 0; i < hits.size(); ++i)
      ASSERT_EQ(hits[i].load(), times) << "index " << i;
  }
};

/// Many short loops back to back (the workers never get to sleep between
/// them) over sizes below, at and above the thread count.
TEST_P(ThreadPoolTest, BackToBackLoopsRunEveryIndexOnce) {
  constexpr int kLoops = 20000;
  for (int64_t n : {1, 2, 3, 7, 64, 1000}) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    Coverage c(n);
    for (int loop = 0; loop < kLoops; ++loop)
      nn_rt_parallel_for(n, Coverage::run, &c);
    c.expectEach(kLoops);
  }
}

/// Loops after a pause long enough for every worker to go to sleep, so each
/// one is woken through the futex, and a loop of n = 0 calls nothing.
TEST_P(ThreadPoolTest, LoopsAfterTheWorkersSleptRunEveryIndexOnce) {
  Coverage c(100);
  for (int loop = 0; loop < 20; ++loop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    nn_rt_parallel_for(100, Coverage::run, &c);
    nn_rt_parallel_for(0, Coverage::run, &c);
  }
  c.expectEach(20);
}

/// After a loop the workers spin only briefly, then sleep: over a pause of
/// 300 ms the process uses far less than the 300 ms of CPU per worker that
/// spinning on would (a loaded machine can only lower the usage measured).
TEST_P(ThreadPoolTest, IdleWorkersSleep) {
  Coverage c(64);
  nn_rt_parallel_for(64, Coverage::run, &c);
  std::this_thread::sleep_for(std::chrono::milliseconds(20)); // spins end
  auto cpuSeconds = [] {
    rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
           1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  };
  double before = cpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LT(cpuSeconds() - before, 0.05);
  c.expectEach(1);
}

/// The thread count may change between loops: workers started for a larger
/// count stay out of a smaller loop, and a larger one starts more.
TEST(ThreadPoolCountTest, ChangingTheThreadCountBetweenLoops) {
  Coverage c(501);
  int loops = 0;
  for (int threads : {3, 2, 4, 1, 2, 4, 3}) {
    nn_rt_set_num_threads(threads);
    for (int loop = 0; loop < 200; ++loop, ++loops)
      nn_rt_parallel_for(501, Coverage::run, &c);
  }
  nn_rt_set_num_threads(1);
  c.expectEach(loops);
}

/// A loop called from inside a loop's body runs serially, as one range on
/// the thread that called it.
TEST_P(ThreadPoolTest, NestedLoopRunsSeriallyOnItsThread) {
  struct Outer {
    std::atomic<int> innerCalls{0}, wrongInner{0}, outerIndices{0};
  } outer;
  struct Inner {
    Outer *outer;
    std::thread::id thread;
  };
  nn_rt_parallel_for(
      16,
      [](void *ctx, int64_t begin, int64_t end) {
        auto *o = static_cast<Outer *>(ctx);
        for (int64_t i = begin; i < end; ++i) {
          o->outerIndices++;
          Inner inner{o, std::this_thread::get_id()};
          nn_rt_parallel_for(
              50,
              [](void *ctx, int64_t b, int64_t e) {
                auto *in = static_cast<Inner *>(ctx);
                in->outer->innerCalls++;
                if (b != 0 || e != 50 ||
                    std::this_thread::get_id() != in->thread)
                  in->outer->wrongInner++;
              },
              &inner);
        }
      },
      &outer);
  EXPECT_EQ(outer.outerIndices.load(), 16);
  EXPECT_EQ(outer.innerCalls.load(), 16);
  EXPECT_EQ(outer.wrongInner.load(), 0);
}

/// Two threads calling at once: one gets the pool, the other runs serially;
/// both cover their ranges exactly once.
TEST_P(ThreadPoolTest, ConcurrentCallersEachRunTheirRangeOnce) {
  Coverage a(300), b(300);
  auto caller = [](Coverage *c) {
    for (int loop = 0; loop < 2000; ++loop)
      nn_rt_parallel_for(300, Coverage::run, c);
  };
  std::thread other(caller, &b);
  caller(&a);
  other.join();
  a.expectEach(2000);
  b.expectEach(2000);
}

/// A range near INT64_MAX is cut without overflow: the ranges tile it.
TEST_P(ThreadPoolTest, HugeRangeIsTiledWithoutOverflow) {
  struct Tiles {
    std::atomic<int64_t> covered{0};
    std::atomic<int> bad{0};
  } t;
  const int64_t n = INT64_MAX - 5;
  nn_rt_parallel_for(
      n,
      [](void *ctx, int64_t begin, int64_t end) {
        auto *t = static_cast<Tiles *>(ctx);
        if (begin < 0 || begin >= end || end > INT64_MAX - 5)
          t->bad++;
        t->covered.fetch_add(end - begin);
      },
      &t);
  EXPECT_EQ(t.bad.load(), 0);
  EXPECT_EQ(t.covered.load(), n);
}

/// On 2 threads, holds the first range that the caller (or else the worker)
/// runs until every other index is done. The other thread's ranges wait
/// until that hold began, so the loop cannot finish before the held side
/// claims anything. Generous deadlines make a regression fail, not hang.
struct HeldRange {
  explicit HeldRange(int64_t n, bool holdOnCaller)
      : n(n), holdOnCaller(holdOnCaller), caller(std::this_thread::get_id()) {}
  const int64_t n;
  const bool holdOnCaller;
  const std::thread::id caller;
  std::atomic<bool> holding{false};
  std::atomic<int64_t> done{0}, heldSize{0};
  std::atomic<int> timedOut{0};

  template <typename Until> void wait(Until until) {
    auto deadline = Clock::now() + std::chrono::seconds(20);
    while (!until())
      if (Clock::now() > deadline) {
        timedOut++;
        return;
      }
  }
  static void run(void *ctx, int64_t begin, int64_t end) {
    auto *h = static_cast<HeldRange *>(ctx);
    int64_t size = end - begin;
    bool onCaller = std::this_thread::get_id() == h->caller;
    if (onCaller == h->holdOnCaller) {
      if (!h->holding.load()) {
        h->heldSize = size;
        h->holding = true;
        h->wait([&] { return h->done.load() >= h->n - size; });
      }
    } else {
      h->wait([&] { return h->holding.load(); });
    }
    h->done.fetch_add(size);
  }
};

/// Runs a HeldRange loop of 1000 on 2 threads.
void runHeld(HeldRange &h) {
  nn_rt_set_num_threads(2);
  nn_rt_parallel_for(h.n, HeldRange::run, &h);
  nn_rt_set_num_threads(1);
  EXPECT_EQ(h.timedOut.load(), 0);
  EXPECT_EQ(h.done.load(), h.n);
  // Half its share or less: a thread never claims its whole share at once.
  EXPECT_LE(h.heldSize.load(), h.n / 4);
}

/// The caller's first range is held until the rest of [0, n) is done: the
/// worker must take the rest of the caller's share as well as its own.
TEST(ThreadPoolClaimTest, WorkerTakesTheHeldCallersShare) {
  HeldRange h(1000, /*holdOnCaller=*/true);
  runHeld(h);
}

/// A worker's first range is held: the caller takes the rest of that
/// worker's share instead of waiting for it, so it only ever waits for the
/// range that is running.
TEST(ThreadPoolClaimTest, CallerTakesTheHeldWorkersShare) {
  HeldRange h(1000, /*holdOnCaller=*/false);
  runHeld(h);
}

/// A loop whose caller holds its first piece until the workers ran every
/// other one; each piece records whether its thread's kept buffer of `kind`
/// held `floats` when the piece began.
struct ScratchCheck {
  nn_rt::Kept kind;
  int64_t floats;
  int64_t n = 64;
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int64_t> done{0}, onWorkers{0};
  std::atomic<int> pieces{0}, unsized{0}, timedOut{0};

  static void run(void *ctx, int64_t begin, int64_t end) {
    auto *s = static_cast<ScratchCheck *>(ctx);
    s->pieces++;
    if (nn_rt::keptFloats(s->kind) < s->floats)
      s->unsized++;
    bool onCaller = std::this_thread::get_id() == s->caller;
    if (onCaller && s->done.load() == 0) {
      auto deadline = Clock::now() + std::chrono::seconds(20);
      while (s->done.load() < s->n - (end - begin))
        if (Clock::now() > deadline) {
          s->timedOut++;
          break;
        }
    }
    if (!onCaller)
      s->onWorkers += end - begin;
    s->done += end - begin;
  }
};

// A piece may run on any of the loop's threads, and a worker's first piece
// may come many loops after it joined the pool: the loop sizes every
// participant's buffers before it hands out a piece, so no piece allocates.
TEST_P(ThreadPoolTest, EveryPieceFindsItsThreadsScratchSized) {
  nn_rt_release_cached_memory(); // what earlier tests sized
  for (int loop = 0; loop < 8; ++loop) {
    // Larger every loop, so no earlier loop sized it.
    ScratchCheck s{nn_rt::Kept::directScratch, (1 << 18) + loop * 1024};
    nn_rt::parallelFor(s.n, ScratchCheck::run, &s,
                       nn_rt::withScratch({}, s.kind, s.floats));
    EXPECT_EQ(s.timedOut.load(), 0);
    EXPECT_GT(s.onWorkers.load(), 0); // the workers ran pieces
    EXPECT_EQ(s.unsized.load(), 0) << "loop " << loop;
  }
}

// nn_rt_release_cached_memory frees the caller's kept buffers and every
// worker's.
TEST_P(ThreadPoolTest, ReleasingCachedMemoryEmptiesEveryThreadsBuffers) {
  ScratchCheck sized{nn_rt::Kept::directScratch, 1 << 16};
  nn_rt::parallelFor(sized.n, ScratchCheck::run, &sized,
                     nn_rt::withScratch({}, sized.kind, sized.floats));
  EXPECT_EQ(sized.unsized.load(), 0);
  nn_rt_release_cached_memory();
  EXPECT_EQ(nn_rt::keptFloats(nn_rt::Kept::directScratch), 0);
  // A loop that sizes nothing: every piece, the workers' included, finds
  // its thread's buffer empty (smaller than one float).
  ScratchCheck empty{nn_rt::Kept::directScratch, 1};
  nn_rt_parallel_for(empty.n, ScratchCheck::run, &empty);
  EXPECT_GT(empty.onWorkers.load(), 0);
  EXPECT_EQ(empty.unsized.load(), empty.pieces.load());
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(2, 3, 4));

} // namespace
