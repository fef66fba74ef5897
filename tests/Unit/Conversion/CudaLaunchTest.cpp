//===- CudaLaunchTest.cpp - An NVRTC kernel run on the GPU ----------------===//
//
// The whole path a compiled model's kernels take, on the GPU this machine
// has: CUDA C++ compiled by NVRTC for its architecture, the cubin loaded,
// the kernel launched on tensors moved to the GPU, the results copied
// back. Skips, saying why, without a GPU or NVRTC (CI has neither GPU).
//
//===----------------------------------------------------------------------===//

#include "Cuda/Kernel.h"
#include "nn/Conversion/CUDA/Nvrtc.h"
#include "nn/Runtime/Cuda.h"
#include "nn/Runtime/Tensor.h"

#include "gtest/gtest.h"

using namespace nn;

namespace {

TEST(CudaLaunchTest_CUDA, AnNvrtcKernelRunsOnTheGpu) {
  if (!cuda::is_available())
    GTEST_SKIP() << "no CUDA GPU on this machine";
  llvm::Expected<std::string> version = mlir::nn::cuda::nvrtcVersion();
  if (!version)
    GTEST_SKIP() << llvm::toString(version.takeError());
  cuda::DeviceProperties gpu = cuda::get_device_properties(0);
  mlir::nn::cuda::NvrtcOptions options;
  options.arch = gpu.arch();
  llvm::Expected<mlir::nn::cuda::NvrtcOutput> compiled =
      mlir::nn::cuda::compileCuda(R"cuda(
extern "C" __global__ void __launch_bounds__(128)
axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
)cuda",
                                  "axpy.cu", options);
  ASSERT_TRUE(!!compiled) << llvm::toString(compiled.takeError());

  absl::StatusOr<cuda::detail::Driver *> driver = cuda::detail::driver();
  ASSERT_TRUE(driver.ok()) << driver.status();
  for (const std::string *image : {&compiled->cubin, &compiled->ptx}) {
    absl::StatusOr<std::unique_ptr<cuda::detail::KernelModule>> module =
        cuda::detail::KernelModule::load(**driver, 0, *image);
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<cuda::detail::Kernel> axpy = (*module)->kernel("axpy");
    ASSERT_TRUE(axpy.ok()) << axpy.status();

    const int n = 1000; // not a multiple of the block
    std::vector<float> xs(n), ys(n);
    for (int i = 0; i < n; ++i)
      xs[i] = 0.5f * i, ys[i] = 1.0f - i;
    Tensor x = Tensor::from_vector(xs, {n}).to(Device::cuda());
    Tensor y = Tensor::from_vector(ys, {n}).to(Device::cuda());
    void *yp = y.storage()->data();
    const void *xp = x.storage()->data();
    float a = 3.0f;
    int count = n;
    void *arguments[] = {&yp, &xp, &a, &count};
    ASSERT_TRUE(cuda::detail::launch(**driver, *axpy, {(n + 127) / 128}, {128},
                                     0, nullptr, arguments)
                    .ok());
    Tensor result = y.to(Device::cpu()); // waits for the kernel
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(result.item_as_double(i), double(3.0f * xs[i] + ys[i])) << i;
  }
}

} // namespace
