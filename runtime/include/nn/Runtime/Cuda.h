//===- Cuda.h - The GPUs this process can use -------------------*- C++ -*-===//
//
// torch.cuda's queries: whether a GPU can be used, how many there are and
// what they are. nn links no CUDA library: the NVIDIA driver (libcuda.so.1,
// or the file NN_CUDA_DRIVER names) is opened on the first call, so a
// program built with nn runs unchanged where no driver or GPU exists. There,
// is_available() is false, device_count() is 0 and anything that needs a
// GPU throws nn::Error saying why: "no CUDA driver found: ...", "device 1
// requested, 1 device present". Tensors on a GPU take their memory from a
// caching allocator per device (PyTorch's design and size classes), whose
// numbers memory_allocated() and its siblings report.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_CUDA_H
#define NN_RUNTIME_CUDA_H

#include "nn/Runtime/Device.h"

#include <cstdint>
#include <string>

namespace nn::cuda {

/// Whether a CUDA driver is installed and reports at least one GPU. Never
/// throws.
bool is_available();

/// The GPUs the driver reports; 0 without a driver. Never throws.
int device_count();

/// The driver's CUDA version as CUDA numbers it (13000 for 13.0); 0
/// without a driver. Never throws.
int driver_version();

/// What torch.cuda.get_device_properties reports.
struct DeviceProperties {
  std::string name;
  int major = 0; ///< compute capability
  int minor = 0;
  int multi_processor_count = 0;
  int64_t total_memory = 0; ///< bytes

  /// The compute capability as NVRTC and nvcc name the architecture:
  /// "sm_90".
  std::string arch() const {
    return "sm_" + std::to_string(major) + std::to_string(minor);
  }
};

/// The properties of GPU `device`; throws nn::Error when there is no driver
/// or no such GPU.
DeviceProperties get_device_properties(int device = 0);

/// The architecture kernels for GPU `device` are compiled for by default:
/// its own where this process can use it, else "sm_90" (H100, H200). Never
/// throws.
std::string default_arch(int device = 0);

/// Free and total bytes of GPU `device`'s memory, as
/// torch.cuda.mem_get_info; throws as get_device_properties does.
struct MemoryInfo {
  int64_t free = 0;
  int64_t total = 0;
};
MemoryInfo mem_get_info(int device = 0);

/// Bytes of GPU `device`'s memory in tensors now, as
/// torch.cuda.memory_allocated (blocks are rounded up to 512 bytes).
int64_t memory_allocated(int device = 0);
/// Bytes nn's caching allocator holds from the driver for `device`: in
/// tensors, or cached for reuse (torch.cuda.memory_reserved).
int64_t memory_reserved(int device = 0);
/// The peaks of the two since the start or reset_peak_memory_stats.
int64_t max_memory_allocated(int device = 0);
int64_t max_memory_reserved(int device = 0);
void reset_peak_memory_stats(int device = 0);
/// Returns the cached memory that no tensor uses to the driver, on every
/// GPU, as torch.cuda.empty_cache; does nothing where no GPU was used.
void empty_cache();

/// Throws nn::Error unless `device` is the CPU or a GPU this process can
/// use, naming what is missing: "no CUDA driver found: ...", "device 1
/// requested, 1 device present".
void check_device(Device device);

} // namespace nn::cuda

#endif // NN_RUNTIME_CUDA_H
