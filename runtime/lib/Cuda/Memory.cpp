//===- Memory.cpp - Tensor storage in GPU memory --------------------------===//

#include "Cuda/Memory.h"

#include "Cuda/CachingAllocator.h"
#include "nn/Runtime/Error.h"

#include "absl/strings/str_cat.h"

#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>

namespace nn::cuda::detail {
namespace {

CUdeviceptr devicePointer(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

/// The allocators made so far, by device. Never destroyed: tensors in
/// static storage may be freed after they would be.
struct Allocators {
  std::mutex mutex;
  std::deque<CachingAllocator> made;
  std::vector<CachingAllocator *> byDevice;
};
Allocators &allocators() {
  static Allocators *all = new Allocators();
  return *all;
}

} // namespace

CachingAllocator &allocatorFor(int device) {
  Driver &d = driverOrThrow();
  throwIfError(d.checkDevice(device));
  Allocators &all = allocators();
  std::lock_guard<std::mutex> lock(all.mutex);
  if (all.byDevice.empty())
    all.byDevice.assign(d.deviceCount(), nullptr);
  if (!all.byDevice[device])
    all.byDevice[device] = &all.made.emplace_back(d, device);
  return *all.byDevice[device];
}

void forEachAllocator(void (*fn)(CachingAllocator &)) {
  Allocators &all = allocators();
  std::vector<CachingAllocator *> made;
  {
    std::lock_guard<std::mutex> lock(all.mutex);
    for (CachingAllocator &a : all.made)
      made.push_back(&a);
  }
  for (CachingAllocator *a : made)
    fn(*a);
}

void *allocateZeroed(int device, size_t nbytes) {
  CachingAllocator &allocator = allocatorFor(device);
  absl::StatusOr<CUdeviceptr> p = allocator.allocate(nbytes, nullptr);
  throwIfError(p.status());
  if (*p) {
    Driver &d = driverOrThrow();
    // allocate() made the device's context current on this thread.
    throwIfError(d.check(d.cuMemsetD8(*p, 0, nbytes), "cuMemsetD8"));
  }
  return reinterpret_cast<void *>(static_cast<uintptr_t>(*p));
}

void deallocate(int device, void *pointer) noexcept {
  if (!pointer)
    return;
  try {
    absl::Status s = allocatorFor(device).free(devicePointer(pointer));
    if (!s.ok())
      std::fprintf(stderr, "nn: %s\n", std::string(s.message()).c_str());
  } catch (const Error &e) {
    std::fprintf(stderr, "nn: freeing GPU memory: %s\n", e.what());
  }
}

void copy(void *dst, Device to, const void *src, Device from, size_t nbytes) {
  if (nbytes == 0)
    return;
  if (to.is_cpu() && from.is_cpu()) {
    std::memmove(dst, src, nbytes);
    return;
  }
  Driver &d = driverOrThrow();
  // The context of a GPU involved; with two GPUs, unified addressing lets
  // the copy name both from either context.
  throwIfError(d.use(to.is_cuda() ? to.index() : from.index()));
  if (from.is_cpu())
    throwIfError(d.check(d.cuMemcpyHtoD(devicePointer(dst), src, nbytes),
                         "cuMemcpyHtoD"));
  else if (to.is_cpu())
    throwIfError(d.check(d.cuMemcpyDtoH(dst, devicePointer(src), nbytes),
                         "cuMemcpyDtoH"));
  else
    throwIfError(
        d.check(d.cuMemcpyDtoD(devicePointer(dst), devicePointer(src), nbytes),
                "cuMemcpyDtoD"));
}

} // namespace nn::cuda::detail
