//===- CachingAllocator.cpp - GPU memory, cached per stream ---------------===//
//
// The pools, splitting and merging of CachingAllocator.h; the sizes are
// PyTorch's (c10/cuda/CUDACachingAllocator.cpp).
//
//===----------------------------------------------------------------------===//

#include "Cuda/CachingAllocator.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <tuple>
#include <vector>

namespace nn::cuda::detail {
namespace {

constexpr size_t kMinBlockSize = 512;     // every size rounds up to this
constexpr size_t kSmallSize = 1 << 20;    // largest request of the small pool
constexpr size_t kSmallBuffer = 2 << 20;  // the small pool's segments
constexpr size_t kLargeBuffer = 20 << 20; // large segments below kMinLargeAlloc
constexpr size_t kMinLargeAlloc = 10 << 20; // from here, a segment per request
constexpr size_t kRoundLarge = 2 << 20;     // ... rounded to this

size_t roundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

/// What the driver is asked for to serve a request of `size` (rounded).
size_t segmentSize(size_t size) {
  if (size <= kSmallSize)
    return kSmallBuffer;
  if (size < kMinLargeAlloc)
    return kLargeBuffer;
  return roundUp(size, kRoundLarge);
}

/// Whether what remains of a `size`-byte block after `request` bytes is
/// kept as a block of its own.
bool shouldSplit(size_t size, size_t request, bool small) {
  size_t remaining = size - request;
  return small ? remaining >= kMinBlockSize : remaining > kSmallSize;
}

/// "1.50 GiB", as PyTorch's out-of-memory message prints sizes.
std::string formatBytes(size_t bytes) {
  if (bytes < 1024)
    return absl::StrFormat("%d bytes", bytes);
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3)
    value /= 1024, ++unit;
  return absl::StrFormat("%.2f %s", value, units[unit]);
}

} // namespace

void CachingAllocator::absorbNext(Block *block) {
  Block *next = block->next;
  block->size += next->size;
  block->next = next->next;
  if (next->next)
    next->next->prev = block;
  delete next;
}

bool CachingAllocator::BlockLess::operator()(const Block *a,
                                             const Block *b) const {
  auto key = [](const Block *x) {
    return std::make_tuple(reinterpret_cast<uintptr_t>(x->stream), x->size,
                           x->pointer);
  };
  return key(a) < key(b);
}

CachingAllocator::CachingAllocator(Driver &driver, int device)
    : driver_(driver), device_(device) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!driver_.use(device_).ok())
    return; // the context is gone: so is its memory
  // Every block of every segment is in a pool or in allocated_; the first
  // block of each segment (no prev) owns the driver's allocation.
  std::vector<Block *> blocks(smallPool_.begin(), smallPool_.end());
  blocks.insert(blocks.end(), largePool_.begin(), largePool_.end());
  for (auto &[pointer, block] : allocated_)
    blocks.push_back(block);
  for (Block *b : blocks)
    if (!b->prev)
      (void)driver_.cuMemFree(b->pointer);
  for (Block *b : blocks)
    delete b;
}

absl::StatusOr<CachingAllocator::Block *>
CachingAllocator::newSegment(size_t size, bool small, CUstream stream) {
  size_t bytes = segmentSize(size);
  CUdeviceptr pointer = 0;
  auto driverAlloc = [&] {
    return driver_.check(driver_.cuMemAlloc(&pointer, bytes),
                         absl::StrFormat("cuMemAlloc(%d)", bytes));
  };
  absl::Status s = driverAlloc();
  if (s.code() == absl::StatusCode::kResourceExhausted) {
    // Give back what is cached and try once more, as PyTorch does.
    if (absl::Status released = releaseCached(); !released.ok())
      return released;
    s = driverAlloc();
    if (s.code() == absl::StatusCode::kResourceExhausted)
      return outOfMemory(size);
  }
  if (!s.ok())
    return s;
  ++stats_.segments;
  ++stats_.driverAllocs;
  stats_.reserved += bytes;
  stats_.peakReserved = std::max(stats_.peakReserved, stats_.reserved);
  return new Block{stream, bytes, pointer, small};
}

absl::Status CachingAllocator::outOfMemory(size_t bytes) {
  size_t free = 0, total = 0;
  std::string memory;
  if (driver_.cuMemGetInfo(&free, &total) == CUDA_SUCCESS)
    memory = absl::StrFormat("; the GPU has %s in all, %s free",
                             formatBytes(total), formatBytes(free));
  return absl::ResourceExhaustedError(absl::StrFormat(
      "CUDA out of memory on cuda:%d: tried to allocate %s%s; nn holds %s "
      "(%s in tensors, the rest cached)",
      device_, formatBytes(bytes), memory, formatBytes(stats_.reserved),
      formatBytes(stats_.allocated)));
}

absl::StatusOr<CUdeviceptr> CachingAllocator::allocate(size_t bytes,
                                                       CUstream stream) {
  if (bytes == 0)
    return CUdeviceptr(0);
  std::lock_guard<std::mutex> lock(mutex_);
  if (absl::Status s = driver_.use(device_); !s.ok())
    return s;
  const size_t size = roundUp(bytes, kMinBlockSize);
  const bool small = size <= kSmallSize;
  Pool &pool = small ? smallPool_ : largePool_;

  Block key{stream, size, 0, small};
  auto fit = pool.lower_bound(&key);
  Block *block;
  if (fit != pool.end() && (*fit)->stream == stream) {
    block = *fit;
    pool.erase(fit);
  } else {
    absl::StatusOr<Block *> segment = newSegment(size, small, stream);
    if (!segment.ok())
      return segment.status();
    block = *segment;
  }
  if (shouldSplit(block->size, size, small)) {
    // The front is handed out; the rest stays in the pool.
    Block *rest =
        new Block{stream, block->size - size, block->pointer + size, small};
    rest->prev = block;
    rest->next = block->next;
    if (block->next)
      block->next->prev = rest;
    block->next = rest;
    block->size = size;
    pool.insert(rest);
  }
  block->allocated = true;
  allocated_.emplace(block->pointer, block);
  stats_.allocated += block->size;
  stats_.peakAllocated = std::max(stats_.peakAllocated, stats_.allocated);
  return block->pointer;
}

absl::Status CachingAllocator::free(CUdeviceptr pointer) {
  if (pointer == 0)
    return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocated_.find(pointer);
  if (it == allocated_.end())
    return absl::InvalidArgumentError(absl::StrFormat(
        "free of 0x%x on cuda:%d, which nn's allocator did not hand out (or "
        "has freed already)",
        pointer, device_));
  Block *block = it->second;
  allocated_.erase(it);
  block->allocated = false;
  stats_.allocated -= block->size;
  Pool &pool = poolOf(block);
  // Merge with the free neighbours of the segment.
  if (Block *next = block->next; next && !next->allocated) {
    pool.erase(next);
    absorbNext(block);
  }
  if (Block *prev = block->prev; prev && !prev->allocated) {
    pool.erase(prev);
    absorbNext(prev);
    block = prev;
  }
  pool.insert(block);
  return absl::OkStatus();
}

absl::Status CachingAllocator::releaseFree(Pool &pool) {
  for (auto it = pool.begin(); it != pool.end();) {
    Block *b = *it;
    if (b->prev || b->next) { // part of a segment still in use
      ++it;
      continue;
    }
    if (absl::Status s =
            driver_.check(driver_.cuMemFree(b->pointer), "cuMemFree");
        !s.ok())
      return s;
    ++stats_.driverFrees;
    --stats_.segments;
    stats_.reserved -= b->size;
    it = pool.erase(it);
    delete b;
  }
  return absl::OkStatus();
}

absl::Status CachingAllocator::emptyCache() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (absl::Status s = driver_.use(device_); !s.ok())
    return s;
  return releaseCached();
}

absl::Status CachingAllocator::releaseCached() {
  if (absl::Status s = releaseFree(smallPool_); !s.ok())
    return s;
  return releaseFree(largePool_);
}

CachingAllocator::Stats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::resetPeaks() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peakAllocated = stats_.allocated;
  stats_.peakReserved = stats_.reserved;
}

} // namespace nn::cuda::detail
