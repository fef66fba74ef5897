//===- CachingAllocator.h - GPU memory, cached per stream (private) -*- C++
//-*-===//
//
// cuMemAlloc and cuMemFree synchronize the device and take milliseconds, so
// GPU memory is taken from the driver in segments and cached, as PyTorch's
// CUDACachingAllocator does: a freed block goes back to its pool and the
// next request of its stream reuses it, so a model's steady-state calls
// allocate nothing from the driver.
//
//   - Sizes round up to 512 bytes. Requests of up to 1 MiB come from 2 MiB
//     segments (the small pool); larger ones from 20 MiB segments below
//     10 MiB, else from a segment of their size rounded up to 2 MiB (the
//     large pool).
//   - A request takes the smallest cached block of its stream and pool that
//     fits, split when what remains is worth keeping (512 bytes in the
//     small pool, more than 1 MiB in the large one). A freed block merges
//     with free neighbours of its segment.
//   - Blocks are stream-ordered: one freed on stream S is reused only by
//     requests on S, whose work the stream orders after the work that used
//     it, so no synchronization is needed.
//   - When the driver is out of memory, the cached segments with nothing
//     allocated in them are released and the request tried once more; then
//     the error names the request, the GPU's memory and what nn holds.
//
// This header is private to runtime/lib (and its unit tests).
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_LIB_CUDA_CACHINGALLOCATOR_H
#define NN_RUNTIME_LIB_CUDA_CACHINGALLOCATOR_H

#include "Cuda/Driver.h"

#include <cstdint>
#include <mutex>
#include <set>
#include <unordered_map>

namespace nn::cuda::detail {

class CachingAllocator {
public:
  /// What torch.cuda.memory_stats reports, in bytes.
  struct Stats {
    size_t allocated = 0;     ///< in blocks handed out
    size_t reserved = 0;      ///< in segments taken from the driver
    size_t peakAllocated = 0; ///< since construction or resetPeaks()
    size_t peakReserved = 0;
    int64_t segments = 0;     ///< segments held now
    int64_t driverAllocs = 0; ///< cuMemAlloc calls that succeeded
    int64_t driverFrees = 0;  ///< cuMemFree calls
  };

  /// Memory of GPU `device` of `driver` (which must outlive this).
  CachingAllocator(Driver &driver, int device);
  /// Returns every segment to the driver: blocks still allocated become
  /// invalid, so their owners must be gone.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator &) = delete;
  CachingAllocator &operator=(const CachingAllocator &) = delete;

  /// `bytes` of device memory for work on `stream` (nullptr: the default
  /// stream), 512-byte aligned; 0 for 0 bytes. Out of memory is
  /// ResourceExhausted, naming the request and the memory.
  absl::StatusOr<CUdeviceptr> allocate(size_t bytes, CUstream stream);
  /// Returns a block from allocate() to its stream's pool; freeing 0 does
  /// nothing. A pointer that allocate() did not return is an error.
  absl::Status free(CUdeviceptr pointer);
  /// Returns the segments with nothing allocated in them to the driver, as
  /// torch.cuda.empty_cache.
  absl::Status emptyCache();

  Stats stats() const;
  void resetPeaks();

private:
  struct Block {
    CUstream stream;
    size_t size;
    CUdeviceptr pointer;
    bool small; // which pool
    bool allocated = false;
    Block *prev = nullptr; // neighbours within the segment
    Block *next = nullptr;
  };
  /// Blocks ordered by stream, then size, then address: a pool's
  /// lower_bound on (stream, size) is the best fit.
  struct BlockLess {
    bool operator()(const Block *a, const Block *b) const;
  };
  using Pool = std::set<Block *, BlockLess>;

  Pool &poolOf(const Block *b) { return b->small ? smallPool_ : largePool_; }
  /// A new segment for a request of `size` bytes (rounded) on `stream`.
  absl::StatusOr<Block *> newSegment(size_t size, bool small, CUstream stream);
  /// Frees the segments of `pool` that are one free block.
  absl::Status releaseFree(Pool &pool);
  /// releaseFree of both pools.
  absl::Status releaseCached();
  /// Joins the block after `block` (free, of its segment) onto it: the
  /// inverse of a split.
  static void absorbNext(Block *block);
  /// The error for a request of `bytes` the driver could not serve even
  /// after the cache was released.
  absl::Status outOfMemory(size_t bytes);

  Driver &driver_;
  const int device_;
  mutable std::mutex mutex_;
  Pool smallPool_, largePool_;
  std::unordered_map<CUdeviceptr, Block *> allocated_;
  Stats stats_;
};

} // namespace nn::cuda::detail

#endif // NN_RUNTIME_LIB_CUDA_CACHINGALLOCATOR_H
