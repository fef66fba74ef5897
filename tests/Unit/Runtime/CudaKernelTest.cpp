//===- CudaKernelTest.cpp - Loading and launching kernels -----------------===//
//
// KernelModule and launch over the fake driver (Inputs/fake_libcuda.c),
// which finds a kernel by its PTX entry and checks a launch's shape as the
// driver does, without running it; what kernels compute is tested on a GPU
// (tests/Unit/Conversion/CudaLaunchTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "Cuda/Kernel.h"

#include "FakeCudaDriver.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace nn::cuda::detail;
using ::testing::StrEq;

namespace {

constexpr const char *kPtx = ".version 9.0\n.target sm_90\n"
                             ".visible .entry scale(\n.param .u64 x\n)\n{}\n";

class CudaKernelTest : public ::testing::Test {
protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Driver>> d =
        Driver::load(NN_TEST_FAKE_CUDA_DRIVER_PATH);
    ASSERT_TRUE(d.ok()) << d.status();
    driver = std::move(*d);
  }
  std::unique_ptr<Driver> driver;
};

TEST_F(CudaKernelTest, FindsTheKernelsOfAModule) {
  absl::StatusOr<std::unique_ptr<KernelModule>> module =
      KernelModule::load(*driver, 0, kPtx);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Kernel> scale = (*module)->kernel("scale");
  ASSERT_TRUE(scale.ok()) << scale.status();
  EXPECT_EQ(scale->name, "scale");
  EXPECT_NE(scale->function, nullptr);
  EXPECT_THAT(std::string((*module)->kernel("shift").status().message()),
              StrEq("cuModuleGetFunction(\"shift\") failed: "
                    "CUDA_ERROR_NOT_FOUND (named symbol not found)"));
}

TEST_F(CudaKernelTest, AnImageThatIsNoModuleIsRefused) {
  absl::StatusOr<std::unique_ptr<KernelModule>> module =
      KernelModule::load(*driver, 0, "garbage");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(std::string(module.status().message()),
              StrEq("cuModuleLoadData(7 bytes) failed: "
                    "CUDA_ERROR_INVALID_IMAGE"));
  EXPECT_THAT(
      std::string(KernelModule::load(*driver, 3, kPtx).status().message()),
      StrEq("device 3 requested, 1 device present"));
}

TEST_F(CudaKernelTest, ALaunchNamesTheKernelAndItsShape) {
  absl::StatusOr<std::unique_ptr<KernelModule>> module =
      KernelModule::load(*driver, 0, kPtx);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Kernel> scale = (*module)->kernel("scale");
  ASSERT_TRUE(scale.ok());
  unsigned long long x = 0;
  void *arguments[] = {&x};
  int before = nn::test::fakeCudaLaunches();
  EXPECT_TRUE(launch(*driver, *scale, {4}, {256}, 0, nullptr, arguments).ok());
  EXPECT_EQ(nn::test::fakeCudaLaunches(), before + 1);
  EXPECT_THAT(
      std::string(launch(*driver, *scale, {1}, {64, 32}, 0, nullptr, arguments)
                      .message()),
      StrEq("cuLaunchKernel(scale, grid 1x1x1, block 64x32x1, 0 bytes "
            "shared) failed: CUDA_ERROR_INVALID_VALUE (invalid argument)"));
  EXPECT_EQ(nn::test::fakeCudaLaunches(), before + 1);
}

} // namespace
