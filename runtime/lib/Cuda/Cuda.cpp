//===- Cuda.cpp - The GPUs this process can use ---------------------------===//
//
// nn/Runtime/Cuda.h over the lazily loaded driver (Cuda/Driver.h).
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Cuda.h"

#include "Cuda/CachingAllocator.h"
#include "Cuda/Driver.h"
#include "Cuda/Memory.h"
#include "nn/Runtime/Error.h"

#include "absl/strings/str_cat.h"

namespace nn::cuda {
namespace {

using detail::Driver;
using detail::driverOrThrow;
using detail::throwIfError;

/// The driver with `device` checked and its context current.
Driver &driverFor(int device) {
  Driver &d = driverOrThrow();
  throwIfError(d.use(device));
  return d;
}

} // namespace

bool is_available() { return device_count() > 0; }

int device_count() {
  absl::StatusOr<Driver *> d = detail::driver();
  return d.ok() ? (*d)->deviceCount() : 0;
}

int driver_version() {
  absl::StatusOr<Driver *> d = detail::driver();
  return d.ok() ? (*d)->version() : 0;
}

std::string default_arch(int device) {
  if (device < 0 || device >= device_count())
    return "sm_90";
  try {
    return get_device_properties(device).arch();
  } catch (const Error &) {
    return "sm_90";
  }
}

DeviceProperties get_device_properties(int device) {
  Driver &d = driverOrThrow();
  throwIfError(d.checkDevice(device));
  detail::CUdevice handle;
  throwIfError(d.check(d.cuDeviceGet(&handle, device), "cuDeviceGet"));
  DeviceProperties p;
  char name[256] = {};
  throwIfError(d.check(d.cuDeviceGetName(name, sizeof(name) - 1, handle),
                       "cuDeviceGetName"));
  p.name = name;
  auto attribute = [&](int which, int &value, const char *what) {
    throwIfError(d.check(d.cuDeviceGetAttribute(&value, which, handle),
                         absl::StrCat("cuDeviceGetAttribute(", what, ")")));
  };
  attribute(detail::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, p.major,
            "compute capability major");
  attribute(detail::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, p.minor,
            "compute capability minor");
  attribute(detail::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            p.multi_processor_count, "multiprocessor count");
  size_t total = 0;
  throwIfError(d.check(d.cuDeviceTotalMem(&total, handle), "cuDeviceTotalMem"));
  p.total_memory = static_cast<int64_t>(total);
  return p;
}

MemoryInfo mem_get_info(int device) {
  Driver &d = driverFor(device);
  size_t free = 0, total = 0;
  throwIfError(d.check(d.cuMemGetInfo(&free, &total), "cuMemGetInfo"));
  return {static_cast<int64_t>(free), static_cast<int64_t>(total)};
}

int64_t memory_allocated(int device) {
  return static_cast<int64_t>(detail::allocatorFor(device).stats().allocated);
}

int64_t memory_reserved(int device) {
  return static_cast<int64_t>(detail::allocatorFor(device).stats().reserved);
}

int64_t max_memory_allocated(int device) {
  return static_cast<int64_t>(
      detail::allocatorFor(device).stats().peakAllocated);
}

int64_t max_memory_reserved(int device) {
  return static_cast<int64_t>(
      detail::allocatorFor(device).stats().peakReserved);
}

void reset_peak_memory_stats(int device) {
  detail::allocatorFor(device).resetPeaks();
}

void empty_cache() {
  detail::forEachAllocator(
      [](detail::CachingAllocator &a) { throwIfError(a.emptyCache()); });
}

void check_device(Device device) {
  if (device.is_cpu())
    return;
  throwIfError(driverOrThrow().checkDevice(device.index()));
}

} // namespace nn::cuda
