//===- CountingMalloc.cpp - malloc and its relatives, counted -------------===//

#include "CountingMalloc.h"

#include <cerrno>
#include <cstdlib>
#include <malloc.h>

extern "C" {
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *pointer, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *pointer);
}

namespace nn::testing {

std::atomic<bool> counting{false};
std::atomic<int64_t> allocations{0};
std::atomic<int64_t> allocatedBytes{0};
std::atomic<int64_t> liveBytes{0};
std::atomic<int64_t> peakBytes{0};

} // namespace nn::testing

namespace {

using nn::testing::liveBytes;

/// Counts the allocation of `pointer` (null: none) and returns it.
void *countOne(void *pointer) {
  const bool counted = nn::testing::counting.load(std::memory_order_relaxed);
  if (counted)
    nn::testing::allocations.fetch_add(1, std::memory_order_relaxed);
  if (!pointer)
    return pointer;
  const auto size = static_cast<int64_t>(malloc_usable_size(pointer));
  if (counted)
    nn::testing::allocatedBytes.fetch_add(size, std::memory_order_relaxed);
  int64_t live = liveBytes.fetch_add(size, std::memory_order_relaxed) + size;
  int64_t peak = nn::testing::peakBytes.load(std::memory_order_relaxed);
  while (live > peak && !nn::testing::peakBytes.compare_exchange_weak(
                            peak, live, std::memory_order_relaxed))
    ;
  return pointer;
}

void forget(void *pointer) {
  if (pointer)
    liveBytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(pointer)),
                        std::memory_order_relaxed);
}

} // namespace

extern "C" void *malloc(size_t size) noexcept {
  return countOne(__libc_malloc(size));
}
extern "C" void *calloc(size_t count, size_t size) noexcept {
  return countOne(__libc_calloc(count, size));
}
extern "C" void *realloc(void *pointer, size_t size) noexcept {
  int64_t before = pointer ? malloc_usable_size(pointer) : 0;
  void *moved = __libc_realloc(pointer, size);
  if (moved || size == 0) // else the old block is still held
    liveBytes.fetch_sub(before, std::memory_order_relaxed);
  return countOne(moved);
}
extern "C" void *aligned_alloc(size_t alignment, size_t size) noexcept {
  return countOne(__libc_memalign(alignment, size));
}
extern "C" void *memalign(size_t alignment, size_t size) noexcept {
  return countOne(__libc_memalign(alignment, size));
}
extern "C" int posix_memalign(void **out, size_t alignment,
                              size_t size) noexcept {
  void *pointer = countOne(__libc_memalign(alignment, size));
  if (!pointer)
    return ENOMEM;
  *out = pointer;
  return 0;
}
extern "C" void free(void *pointer) noexcept {
  forget(pointer);
  __libc_free(pointer);
}
