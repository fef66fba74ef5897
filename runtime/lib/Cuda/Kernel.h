//===- Kernel.h - Loading and launching GPU kernels (private) ---*- C++ -*-===//
//
// A compiled model's kernels arrive as images (cubin for its GPU, and PTX
// the driver compiles for a newer one) made by NVRTC at compile time; the
// runtime loads an image into a module, finds its kernels by name and
// launches them. Every failure names the kernel and what was asked.
//
// This header is private to runtime/lib (and its unit tests).
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_LIB_CUDA_KERNEL_H
#define NN_RUNTIME_LIB_CUDA_KERNEL_H

#include "Cuda/Driver.h"

#include <memory>
#include <string>

namespace nn::cuda::detail {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// A kernel of a loaded module: its handle and its name, for messages.
struct Kernel {
  CUfunction function = nullptr;
  std::string name;
};

/// A module of kernels loaded on one GPU; unloaded with the object.
class KernelModule {
public:
  /// Loads `image` (a cubin, or PTX text) on GPU `device` of `driver`,
  /// which must outlive the module.
  static absl::StatusOr<std::unique_ptr<KernelModule>>
  load(Driver &driver, int device, const std::string &image);
  ~KernelModule();
  KernelModule(const KernelModule &) = delete;
  KernelModule &operator=(const KernelModule &) = delete;

  /// The kernel called `name` ("... not found" names it otherwise).
  absl::StatusOr<Kernel> kernel(const std::string &name) const;

private:
  KernelModule(Driver &driver, int device, CUmodule module)
      : driver_(driver), device_(device), module_(module) {}
  Driver &driver_;
  int device_;
  CUmodule module_;
};

/// Launches `kernel` on `stream` (nullptr: the default stream) over `grid`
/// blocks of `block` threads with `sharedBytes` of dynamic shared memory;
/// `arguments` points at each argument's value, as cuLaunchKernel takes
/// them. Returns once queued; an error names the kernel and the shape.
absl::Status launch(Driver &driver, const Kernel &kernel, Dim3 grid, Dim3 block,
                    unsigned sharedBytes, CUstream stream, void **arguments);

} // namespace nn::cuda::detail

#endif // NN_RUNTIME_LIB_CUDA_KERNEL_H
