//===- Context.cpp - The slots of a compiled model's context --------------===//
//
// A compiled model's context (ArtifactABI.h) is an array of buffer slots:
// prepare fills them from the bound state (BN-folded weights, packed
// operands) and forward only reads them, so forward stays re-entrant. The
// buffers' sizes may depend on the CPU (a packed operand's layout is the
// dispatched kernel's), so prepare allocates each on first use; re-running
// prepare (a rebind) refills the same buffers.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include <stdlib.h>

extern "C" void **nn_rt_context_create(int64_t count) {
  // slots[i] is buffer i (generated code loads it directly); one slot more
  // so that a context without slots is still a valid, non-null handle.
  size_t n = static_cast<size_t>(count > 0 ? count : 0) + 1;
  return static_cast<void **>(calloc(n, sizeof(void *)));
}

extern "C" void *nn_rt_context_buffer(void **slots, int64_t index,
                                      int64_t bytes) {
  // The same call site asks for the same size on every prepare (shapes are
  // static and the CPU, so the packed layout, does not change in-process).
  void *&buffer = slots[index];
  if (!buffer) {
    size_t rounded =
        (static_cast<size_t>(bytes > 0 ? bytes : 1) + 63) / 64 * 64;
    buffer = aligned_alloc(64, rounded);
  }
  return buffer;
}

extern "C" void nn_rt_context_destroy(void **slots, int64_t count) {
  if (!slots)
    return;
  for (int64_t i = 0; i < count; ++i)
    free(slots[i]);
  free(slots);
}
