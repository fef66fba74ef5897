//===- Context.cpp - The slots of a compiled model's context --------------===//
//
// A compiled model's context (ArtifactABI.h) is an array of buffer slots:
// prepare fills them from the bound state (BN-folded weights, packed
// operands) and forward only reads them, so forward stays re-entrant. The
// buffers' sizes may depend on the CPU (a packed operand's layout is the
// dispatched kernel's), so prepare allocates each on first use; re-running
// prepare (a rebind) refills the same buffers. Each buffer remembers its
// size in a header in front of it, so a slot asked for more than it holds
// is reallocated instead of overrun.
//
// When the last context of this copy of the kernels is destroyed, no model
// is left to reuse what the kernels cache for the next call, so that memory
// goes back (nn_rt_release_cached_memory).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include <atomic>
#include <stdlib.h>

namespace {
/// Contexts created and not yet destroyed.
std::atomic<int64_t> liveContexts{0};
} // namespace

extern "C" void **nn_rt_context_create(int64_t count) {
  // slots[i] is buffer i (generated code loads it directly); one slot more
  // so that a context without slots is still a valid, non-null handle.
  size_t n = static_cast<size_t>(count > 0 ? count : 0) + 1;
  void **slots = static_cast<void **>(calloc(n, sizeof(void *)));
  if (slots)
    liveContexts.fetch_add(1, std::memory_order_relaxed);
  return slots;
}

namespace {
/// A slot's buffer starts one alignment unit into its allocation; the unit
/// before it holds the buffer's capacity.
constexpr size_t kAlignment = 64;

size_t &capacityOf(void *buffer) {
  return *reinterpret_cast<size_t *>(static_cast<char *>(buffer) - kAlignment);
}

void release(void *buffer) {
  if (buffer)
    free(static_cast<char *>(buffer) - kAlignment);
}
} // namespace

extern "C" void *nn_rt_context_buffer(void **slots, int64_t index,
                                      int64_t bytes) {
  // A call site asks for the same size on every prepare (shapes are static,
  // and so is the CPU that picks a packed layout), so this allocates once.
  size_t rounded =
      (static_cast<size_t>(bytes > 0 ? bytes : 1) + kAlignment - 1) /
      kAlignment * kAlignment;
  void *&buffer = slots[index];
  if (buffer && capacityOf(buffer) >= rounded)
    return buffer;
  void *grown = nullptr;
  if (char *block = static_cast<char *>(
          aligned_alloc(kAlignment, rounded + kAlignment))) {
    grown = block + kAlignment;
    capacityOf(grown) = rounded;
  }
  release(buffer);
  buffer = grown;
  return buffer;
}

extern "C" void nn_rt_context_destroy(void **slots, int64_t count) {
  if (!slots)
    return;
  for (int64_t i = 0; i < count; ++i)
    release(slots[i]);
  free(slots);
  if (liveContexts.fetch_sub(1, std::memory_order_relaxed) == 1)
    nn_rt_release_cached_memory();
}
