//===- Executable.h - Compiled functions run on a GPU (private) -*- C++ -*-===//
//
// The CUDA backend's compiled module at run time: the kernel image loaded
// on one GPU, every plan's kernels resolved and its constants uploaded
// once, and a run that queues a function's launches on a stream
// (nn/Runtime/CudaLaunchPlan.h). Temporaries come from the device's caching
// allocator for the run and go back to it once the launches are queued:
// the allocator is stream-ordered, so later work on the stream reuses them
// only after these kernels.
//
// This header is private to runtime/lib (and its unit tests).
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_LIB_CUDA_EXECUTABLE_H
#define NN_RUNTIME_LIB_CUDA_EXECUTABLE_H

#include "Cuda/CachingAllocator.h"
#include "Cuda/Kernel.h"

#include "nn/Runtime/CudaLaunchPlan.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nn::cuda::detail {

class Executable {
public:
  /// Loads `image` (cubin or PTX) on GPU `device` and resolves the kernels
  /// of `plans`, uploading their constants through `allocator` (`driver`
  /// and `allocator` must outlive the executable). A kernel missing from
  /// the image is an error naming it.
  static absl::StatusOr<std::unique_ptr<Executable>>
  load(Driver &driver, CachingAllocator &allocator, int device,
       const std::string &image, std::vector<LaunchPlan> plans);
  /// Returns the constants to the allocator.
  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  /// The plan of `function`, or null.
  const LaunchPlan *plan(const std::string &function) const;

  /// Queues `function` on `stream` (nullptr: the default stream):
  /// `arguments` are the device addresses of its state, inputs and outputs,
  /// in its argument order. Returns once the launches are queued.
  absl::Status run(const std::string &function,
                   const std::vector<CUdeviceptr> &arguments,
                   CUstream stream = nullptr) const;

private:
  struct Function {
    LaunchPlan plan;
    std::vector<Kernel> kernels;        ///< one per launch
    std::vector<CUdeviceptr> constants; ///< per buffer; 0 where none
    unsigned arguments = 0;             ///< how many the function takes
  };

  Executable(Driver &driver, CachingAllocator &allocator, int device)
      : driver_(driver), allocator_(allocator), device_(device) {}

  Driver &driver_;
  CachingAllocator &allocator_;
  int device_;
  std::unique_ptr<KernelModule> module_;
  std::map<std::string, Function> functions_;
};

} // namespace nn::cuda::detail

#endif // NN_RUNTIME_LIB_CUDA_EXECUTABLE_H
