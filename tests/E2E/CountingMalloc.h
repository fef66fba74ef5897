//===- CountingMalloc.h - The allocation counters of AllocationTests -----===//
//
// AllocationTests replaces malloc and its relatives with wrappers around
// glibc's allocator (glibc supports replacing them in the executable; code
// the JIT compiles binds to the same symbols) that count what the whole
// process allocates. These are the counters.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_E2E_COUNTINGMALLOC_H
#define NN_TESTS_E2E_COUNTINGMALLOC_H

#include <atomic>
#include <cstdint>

namespace nn::testing {

/// While true, every allocation adds one to `allocations` and its size
/// (malloc_usable_size) to `allocatedBytes`.
extern std::atomic<bool> counting;
extern std::atomic<int64_t> allocations;
extern std::atomic<int64_t> allocatedBytes;
/// The bytes of every block the process holds (malloc_usable_size), always
/// tracked.
extern std::atomic<int64_t> liveBytes;
/// The most `liveBytes` has been since the last resetPeakBytes().
extern std::atomic<int64_t> peakBytes;

/// Starts a new peak from what is held now.
inline void resetPeakBytes() { peakBytes.store(liveBytes.load()); }

} // namespace nn::testing

#endif // NN_TESTS_E2E_COUNTINGMALLOC_H
