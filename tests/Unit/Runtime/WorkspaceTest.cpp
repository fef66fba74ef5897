//===- WorkspaceTest.cpp - The per-thread arena of compiled forwards ------===//
//
// nn_rt_workspace_acquire/release (nn/Runtime/Kernels.h): a thread's block
// is reused while it is large enough, grown when a larger one is asked for,
// never shared between threads or with a nested acquire, and counted by
// nn_rt_workspace_allocations so the steady state (no allocation per call)
// is observable.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>

namespace {

bool isAligned(const void *p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

/// Each test runs on a fresh thread, so the block it sees is its own and
/// other tests' acquires cannot leave it larger than the test expects.
template <typename Fn> void onFreshThread(Fn fn) {
  std::thread thread(fn);
  thread.join();
}

TEST(WorkspaceTest, ReusesTheThreadsBlock) {
  onFreshThread([] {
    void *first = nn_rt_workspace_acquire(1000);
    ASSERT_NE(first, nullptr);
    EXPECT_TRUE(isAligned(first));
    std::memset(first, 1, 1000); // usable in full
    nn_rt_workspace_release(first);
    int64_t before = nn_rt_workspace_allocations();
    for (int i = 0; i < 10; ++i) {
      void *again = nn_rt_workspace_acquire(i % 2 ? 1000 : 10);
      EXPECT_EQ(again, first);
      nn_rt_workspace_release(again);
    }
    EXPECT_EQ(nn_rt_workspace_allocations(), before);
  });
}

TEST(WorkspaceTest, GrowsForALargerRequestAndKeepsTheLargerBlock) {
  onFreshThread([] {
    nn_rt_workspace_release(nn_rt_workspace_acquire(64));
    int64_t before = nn_rt_workspace_allocations();
    void *large = nn_rt_workspace_acquire(1 << 20);
    EXPECT_TRUE(isAligned(large));
    std::memset(large, 2, 1 << 20);
    nn_rt_workspace_release(large);
    EXPECT_EQ(nn_rt_workspace_allocations(), before + 1);
    // Smaller requests are served by the grown block.
    void *small = nn_rt_workspace_acquire(64);
    EXPECT_EQ(small, large);
    nn_rt_workspace_release(small);
    EXPECT_EQ(nn_rt_workspace_allocations(), before + 1);
  });
}

TEST(WorkspaceTest, NestedAcquireGetsABlockOfItsOwn) {
  onFreshThread([] {
    void *outer = nn_rt_workspace_acquire(256);
    void *inner = nn_rt_workspace_acquire(256);
    EXPECT_NE(inner, outer);
    EXPECT_TRUE(isAligned(inner));
    nn_rt_workspace_release(inner); // freed, not cached
    nn_rt_workspace_release(outer);
    void *again = nn_rt_workspace_acquire(256);
    EXPECT_EQ(again, outer);
    nn_rt_workspace_release(again);
  });
}

TEST(WorkspaceTest, TwoThreadsNeverShareABlock) {
  // Both threads hold their block at once and fill it with their own byte;
  // neither sees the other's writes.
  std::atomic<int> holding{0};
  void *blocks[2] = {nullptr, nullptr};
  bool intact[2] = {false, false};
  auto work = [&](int id) {
    constexpr int64_t bytes = 4096;
    auto *block = static_cast<unsigned char *>(nn_rt_workspace_acquire(bytes));
    blocks[id] = block;
    std::memset(block, id + 1, bytes);
    holding.fetch_add(1);
    while (holding.load() < 2)
      std::this_thread::yield();
    bool same = true;
    for (int64_t i = 0; i < bytes; ++i)
      same &= block[i] == id + 1;
    intact[id] = same;
    nn_rt_workspace_release(block);
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_NE(blocks[0], blocks[1]);
  EXPECT_TRUE(intact[0]);
  EXPECT_TRUE(intact[1]);
}

TEST(WorkspaceTest, EveryThreadAllocatesOnceInSteadyState) {
  int64_t before = nn_rt_workspace_allocations();
  auto work = [] {
    for (int i = 0; i < 100; ++i)
      nn_rt_workspace_release(nn_rt_workspace_acquire(512));
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(nn_rt_workspace_allocations(), before + 2);
}

} // namespace
