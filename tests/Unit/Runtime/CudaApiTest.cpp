//===- CudaApiTest.cpp - nn::cuda and Device ------------------------------===//
//
// Built twice (see CMakeLists.txt): CudaApiFakeDriverTests, with
// NN_CUDA_DRIVER naming the fake driver (Inputs/fake_libcuda.c, two GPUs),
// and CudaApiNoDriverTests, with NN_CUDA_DRIVER naming a file that does
// not exist, as on a machine without the NVIDIA driver. main() sets the
// variable before anything loads the driver.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Cuda.h"
#include "nn/Runtime/Error.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace nn;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

namespace {

TEST(DeviceTest, ParsesAndPrintsAsTorchDevice) {
  EXPECT_EQ(Device("cpu"), Device::cpu());
  EXPECT_EQ(Device("cuda"), Device::cuda(0));
  EXPECT_EQ(Device("cuda:3"), Device::cuda(3));
  EXPECT_EQ(Device(kCUDA, 1).str(), "cuda:1");
  EXPECT_EQ(Device::cpu().str(), "cpu");
  EXPECT_EQ(Device(kCPU, 5), Device::cpu()); // the CPU has no index
  EXPECT_NE(Device::cuda(0), Device::cuda(1));
  EXPECT_TRUE(Device::cuda().is_cuda());
  for (const char *bad : {"gpu", "cuda:", "cuda:-1", "cuda:1x", "cuda 1",
                          "cuda:99999999999", "CPU"})
    EXPECT_THAT([&] { Device{std::string_view(bad)}; },
                ThrowsMessage<Error>(
                    StrEq(std::string("invalid device '") + bad +
                          "': expected \"cpu\", \"cuda\" or \"cuda:<index>\"")))
        << bad;
}

#if NN_TEST_CUDA_FAKE_GPUS

TEST(CudaApiTest, ReportsTheDriversGpus) {
  EXPECT_TRUE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 2);
  EXPECT_EQ(cuda::driver_version(), 13000);
  cuda::DeviceProperties p = cuda::get_device_properties(1);
  EXPECT_EQ(p.name, "nn fake GPU 1");
  EXPECT_EQ(p.major, 9);
  EXPECT_EQ(p.minor, 0);
  EXPECT_EQ(p.multi_processor_count, 132);
  EXPECT_EQ(p.total_memory, int64_t(1) << 30);
  cuda::MemoryInfo m = cuda::mem_get_info(1);
  EXPECT_EQ(m.total, int64_t(1) << 30);
  EXPECT_EQ(m.free, m.total);
  EXPECT_NO_THROW(cuda::check_device(Device::cuda(1)));
  EXPECT_NO_THROW(cuda::check_device(Device::cpu()));
}

TEST(CudaApiTest, AMissingGpuIsNamed) {
  EXPECT_THAT(
      [] { cuda::get_device_properties(2); },
      ThrowsMessage<Error>(StrEq("device 2 requested, 2 devices present")));
  EXPECT_THAT(
      [] { cuda::mem_get_info(5); },
      ThrowsMessage<Error>(StrEq("device 5 requested, 2 devices present")));
  EXPECT_THAT(
      [] { cuda::check_device(Device::cuda(2)); },
      ThrowsMessage<Error>(StrEq("device 2 requested, 2 devices present")));
}

#else

TEST(CudaApiTest, WithoutADriverNothingIsAvailable) {
  EXPECT_FALSE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_EQ(cuda::driver_version(), 0);
  EXPECT_NO_THROW(cuda::check_device(Device::cpu()));
}

TEST(CudaApiTest, WithoutADriverAGpuIsAnErrorThatSaysWhy) {
  auto noDriver = ThrowsMessage<Error>(
      StartsWith("no CUDA driver found: /nonexistent/libcuda.so.1"));
  EXPECT_THAT([] { cuda::get_device_properties(0); }, noDriver);
  EXPECT_THAT([] { cuda::mem_get_info(0); }, noDriver);
  EXPECT_THAT([] { cuda::check_device(Device::cuda(0)); }, noDriver);
}

#endif

} // namespace

int main(int argc, char **argv) {
  setenv("NN_CUDA_DRIVER", NN_TEST_CUDA_DRIVER, 1);
  setenv("NN_FAKE_CUDA_DEVICES", "2", 1);
  ::testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
