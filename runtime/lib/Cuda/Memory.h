//===- Memory.h - Tensor storage in GPU memory (private) --------*- C++ -*-===//
//
// What Storage and Tensor need of a GPU: zeroed memory from the device's
// caching allocator (one per device, made on first use and kept for the
// life of the process, as PyTorch keeps its), and copies between host and
// device memory in any direction. Errors throw nn::Error.
//
// This header is private to runtime/lib (and its unit tests).
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_LIB_CUDA_MEMORY_H
#define NN_RUNTIME_LIB_CUDA_MEMORY_H

#include "nn/Runtime/Device.h"

#include <cstddef>

namespace nn::cuda::detail {

/// `nbytes` of zeroed memory on GPU `device` (null for 0 bytes).
void *allocateZeroed(int device, size_t nbytes);
/// Returns memory from allocateZeroed; never throws (a failure is
/// reported on stderr: a destructor has nowhere else to say it).
void deallocate(int device, void *pointer) noexcept;
/// GPU `device`'s caching allocator, made on first use; throws when there
/// is no driver or no such GPU.
class CachingAllocator;
CachingAllocator &allocatorFor(int device);
/// Calls `fn` on the allocator of every GPU used so far.
void forEachAllocator(void (*fn)(CachingAllocator &));

/// Copies `nbytes` from `src` on `from` to `dst` on `to`; either may be the
/// CPU. On the default stream, after the work queued before it; a copy to
/// the CPU has finished when it returns.
void copy(void *dst, Device to, const void *src, Device from, size_t nbytes);

} // namespace nn::cuda::detail

#endif // NN_RUNTIME_LIB_CUDA_MEMORY_H
