//===- CudaCachingAllocatorTest.cpp - GPU memory cached per stream --------===//
//
// The caching allocator over the fake driver (Inputs/fake_libcuda.c), whose
// memory is host memory with a capacity set per test: reuse, splitting,
// merging, streams kept apart, the size classes, and out of memory (the
// cache released, then an error that says what was asked and what is
// held).
//
//===----------------------------------------------------------------------===//

#include "Cuda/CachingAllocator.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <random>

using namespace nn::cuda::detail;
using ::testing::StrEq;

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

CUstream stream(uintptr_t id) { return reinterpret_cast<CUstream>(id); }

class CudaCachingAllocatorTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("NN_FAKE_CUDA_MEMORY", std::to_string(64 * MiB).c_str(), 1);
    absl::StatusOr<std::unique_ptr<Driver>> d =
        Driver::load(NN_TEST_FAKE_CUDA_DRIVER_PATH);
    ASSERT_TRUE(d.ok()) << d.status();
    driver = std::move(*d);
    allocator.emplace(*driver, 0);
  }
  void TearDown() override {
    allocator.reset();
    unsetenv("NN_FAKE_CUDA_MEMORY");
  }

  CUdeviceptr allocate(size_t bytes, CUstream s = nullptr) {
    absl::StatusOr<CUdeviceptr> p = allocator->allocate(bytes, s);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *p : 0;
  }
  void free(CUdeviceptr p) {
    absl::Status s = allocator->free(p);
    EXPECT_TRUE(s.ok()) << s;
  }
  /// Bytes the fake driver has handed out and not taken back.
  size_t driverUsed() {
    size_t free = 0, total = 0;
    EXPECT_TRUE(driver->use(0).ok());
    EXPECT_EQ(driver->cuMemGetInfo(&free, &total), CUDA_SUCCESS);
    return total - free;
  }

  std::unique_ptr<Driver> driver;
  std::optional<CachingAllocator> allocator;
};

TEST_F(CudaCachingAllocatorTest, AFreedBlockIsReusedWithoutTheDriver) {
  CUdeviceptr a = allocate(1000);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(a % 512, 0u);
  CachingAllocator::Stats s = allocator->stats();
  EXPECT_EQ(s.allocated, 1024u);  // rounded to 512 bytes
  EXPECT_EQ(s.reserved, 2 * MiB); // one small segment
  free(a);
  EXPECT_EQ(allocator->stats().allocated, 0u);
  EXPECT_EQ(allocate(1000), a);
  EXPECT_EQ(allocator->stats().driverAllocs, 1);
  EXPECT_EQ(driverUsed(), 2 * MiB);
}

TEST_F(CudaCachingAllocatorTest, SmallRequestsSplitOneSegment) {
  CUdeviceptr a = allocate(4 * KiB), b = allocate(100), c = allocate(512 * KiB);
  EXPECT_EQ(b, a + 4 * KiB);
  EXPECT_EQ(c, b + 512);
  EXPECT_EQ(allocator->stats().segments, 1);
  EXPECT_EQ(allocator->stats().allocated, 4 * KiB + 512 + 512 * KiB);
}

TEST_F(CudaCachingAllocatorTest, FreedNeighboursMergeAndTheSegmentGoesBack) {
  CUdeviceptr a = allocate(600 * KiB), b = allocate(600 * KiB),
              c = allocate(600 * KiB);
  free(a);
  free(c); // merges with the segment's free rest: 848 KiB
  // No free block holds 1 MiB: a new segment.
  CUdeviceptr d = allocate(1 * MiB);
  EXPECT_EQ(allocator->stats().segments, 2);
  free(b); // a, b, c and the rest: the whole first segment is one block
  ASSERT_TRUE(allocator->emptyCache().ok());
  CachingAllocator::Stats s = allocator->stats();
  EXPECT_EQ(s.segments, 1); // d's stays
  EXPECT_EQ(s.reserved, 2 * MiB);
  EXPECT_EQ(s.driverFrees, 1);
  free(d);
  ASSERT_TRUE(allocator->emptyCache().ok());
  EXPECT_EQ(allocator->stats().segments, 0);
  EXPECT_EQ(allocator->stats().reserved, 0u);
  EXPECT_EQ(driverUsed(), 0u);
}

TEST_F(CudaCachingAllocatorTest, StreamsKeepTheirOwnBlocks) {
  CUdeviceptr a = allocate(4 * KiB, stream(1));
  free(a);
  CUdeviceptr b = allocate(4 * KiB, stream(2));
  EXPECT_NE(b, a);
  EXPECT_EQ(allocator->stats().segments, 2);
  EXPECT_EQ(allocate(4 * KiB, stream(1)), a);
}

TEST_F(CudaCachingAllocatorTest, LargeRequestsTakeLargeSegments) {
  // From 10 MiB, a segment of its own rounded to 2 MiB, not split for the
  // 1 MiB or less it leaves.
  allocate(11 * MiB + 1);
  EXPECT_EQ(allocator->stats().reserved, 12 * MiB);
  EXPECT_EQ(allocator->stats().allocated, 12 * MiB);
  allocate(3 * MiB); // below 10 MiB: a 20 MiB segment, split
  EXPECT_EQ(allocator->stats().reserved, 32 * MiB);
  allocate(5 * MiB); // the same segment's rest
  EXPECT_EQ(allocator->stats().segments, 2);
  EXPECT_EQ(allocator->stats().allocated, 20 * MiB);
  allocate(4 * KiB); // small requests never split a large segment
  EXPECT_EQ(allocator->stats().segments, 3);
}

TEST_F(CudaCachingAllocatorTest, OutOfMemoryReleasesTheCacheThenSaysWhy) {
  CUdeviceptr a = allocate(30 * MiB);
  free(a);                            // cached: 30 MiB reserved, none allocated
  CUdeviceptr b = allocate(40 * MiB); // fits only once the cache is released
  ASSERT_NE(b, 0u);
  EXPECT_EQ(allocator->stats().driverFrees, 1);
  EXPECT_EQ(allocator->stats().reserved, 40 * MiB);
  absl::StatusOr<CUdeviceptr> c = allocator->allocate(30 * MiB, nullptr);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(c.status().message()),
              StrEq("CUDA out of memory on cuda:0: tried to allocate 30.00 "
                    "MiB; the GPU has 64.00 MiB in all, 24.00 MiB free; nn "
                    "holds 40.00 MiB (40.00 MiB in tensors, the rest cached)"));
  // Nothing held was lost.
  EXPECT_EQ(allocator->stats().allocated, 40 * MiB);
  free(b);
}

TEST_F(CudaCachingAllocatorTest, ForeignPointersAreRefused) {
  CUdeviceptr a = allocate(4 * KiB);
  EXPECT_THAT(std::string(allocator->free(a + 512).message()),
              testing::MatchesRegex("free of 0x[0-9a-f]+ on cuda:0, which nn's "
                                    "allocator did not hand out \\(or has "
                                    "freed already\\)"));
  free(a);
  EXPECT_FALSE(allocator->free(a).ok()); // twice
}

TEST_F(CudaCachingAllocatorTest, ZeroBytesIsNoMemory) {
  absl::StatusOr<CUdeviceptr> p = allocator->allocate(0, nullptr);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, 0u);
  EXPECT_TRUE(allocator->free(0).ok());
  EXPECT_EQ(allocator->stats().segments, 0);
}

TEST_F(CudaCachingAllocatorTest, PeaksAndDestruction) {
  CUdeviceptr a = allocate(3 * MiB), b = allocate(12 * MiB);
  free(a);
  free(b);
  CachingAllocator::Stats s = allocator->stats();
  EXPECT_EQ(s.peakAllocated, 15 * MiB);
  EXPECT_EQ(s.peakReserved, 20 * MiB); // both in one 20 MiB segment
  allocator->resetPeaks();
  EXPECT_EQ(allocator->stats().peakAllocated, 0u);
  allocate(1 * MiB); // still allocated when the allocator goes
  allocator.reset();
  EXPECT_EQ(driverUsed(), 0u);
}

TEST_F(CudaCachingAllocatorTest, RandomRequestsNeverOverlap) {
  // Live blocks are disjoint, the books balance, and once everything is
  // freed the cache gives every byte back.
  std::mt19937 rng(7);
  std::map<CUdeviceptr, size_t> live; // pointer -> bytes asked
  const CUstream streams[] = {nullptr, stream(1)};
  for (int step = 0; step < 4000; ++step) {
    if (!live.empty() && rng() % 2) {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      free(it->first);
      live.erase(it);
      continue;
    }
    // Mostly small requests, some up to 12 MiB, on two streams.
    size_t bytes = rng() % 8 ? 1 + rng() % (256 * KiB) : 1 + rng() % (12 * MiB);
    absl::StatusOr<CUdeviceptr> p =
        allocator->allocate(bytes, streams[rng() % 2]);
    if (!p.ok()) { // 64 MiB fill up: that must be the reason
      ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
      continue;
    }
    auto next = live.lower_bound(*p);
    ASSERT_TRUE(next == live.end() || *p + bytes <= next->first) << step;
    ASSERT_TRUE(next == live.begin() ||
                std::prev(next)->first + std::prev(next)->second <= *p)
        << step;
    live.emplace(*p, bytes);
  }
  size_t asked = 0;
  for (auto &[p, bytes] : live)
    asked += bytes;
  EXPECT_GE(allocator->stats().allocated, asked);
  EXPECT_LE(allocator->stats().allocated, allocator->stats().reserved);
  EXPECT_EQ(allocator->stats().reserved, driverUsed());
  for (auto &[p, bytes] : live)
    free(p);
  EXPECT_EQ(allocator->stats().allocated, 0u);
  ASSERT_TRUE(allocator->emptyCache().ok());
  EXPECT_EQ(allocator->stats().reserved, 0u);
  EXPECT_EQ(driverUsed(), 0u);
}

} // namespace
