//===- Kernel.cpp - Loading and launching GPU kernels ---------------------===//

#include "Cuda/Kernel.h"

#include "absl/strings/str_format.h"

namespace nn::cuda::detail {

absl::StatusOr<std::unique_ptr<KernelModule>>
KernelModule::load(Driver &driver, int device, const std::string &image) {
  if (absl::Status s = driver.use(device); !s.ok())
    return s;
  // PTX is read up to its NUL; a std::string keeps one past its end.
  CUmodule module = nullptr;
  if (absl::Status s = driver.check(
          driver.cuModuleLoadData(&module, image.c_str()),
          absl::StrFormat("cuModuleLoadData(%d bytes)", image.size()));
      !s.ok())
    return s;
  return std::unique_ptr<KernelModule>(
      new KernelModule(driver, device, module));
}

KernelModule::~KernelModule() {
  if (driver_.use(device_).ok())
    (void)driver_.cuModuleUnload(module_);
}

absl::StatusOr<Kernel> KernelModule::kernel(const std::string &name) const {
  Kernel k{nullptr, name};
  absl::Status s = driver_.check(
      driver_.cuModuleGetFunction(&k.function, module_, name.c_str()),
      absl::StrFormat("cuModuleGetFunction(\"%s\")", name));
  if (!s.ok())
    return s;
  return k;
}

absl::Status launch(Driver &driver, const Kernel &kernel, Dim3 grid, Dim3 block,
                    unsigned sharedBytes, CUstream stream, void **arguments) {
  return driver.check(
      driver.cuLaunchKernel(kernel.function, grid.x, grid.y, grid.z, block.x,
                            block.y, block.z, sharedBytes, stream, arguments,
                            nullptr),
      absl::StrFormat("cuLaunchKernel(%s, grid %dx%dx%d, block %dx%dx%d, %d "
                      "bytes shared)",
                      kernel.name, grid.x, grid.y, grid.z, block.x, block.y,
                      block.z, sharedBytes));
}

} // namespace nn::cuda::detail
