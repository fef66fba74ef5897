//===- CudaDriverTest.cpp - The lazily loaded CUDA driver -----------------===//
//
// Driver::load against a library that is missing, one that is no driver,
// and a fake driver (Inputs/fake_libcuda.c: host memory posing as a GPU's),
// so that every path runs where no GPU exists; DeviceTest_CUDA runs against
// the real driver where there is one and skips, saying so, elsewhere.
//
//===----------------------------------------------------------------------===//

#include "Cuda/Driver.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace nn::cuda::detail;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::StrEq;

namespace {

class CudaDriverTest : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("NN_FAKE_CUDA_DEVICES");
    unsetenv("NN_FAKE_CUDA_MEMORY");
  }
  void TearDown() override { SetUp(); }

  static std::unique_ptr<Driver> loadFake() {
    absl::StatusOr<std::unique_ptr<Driver>> d =
        Driver::load(NN_TEST_FAKE_CUDA_DRIVER_PATH);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? std::move(*d) : nullptr;
  }
};

TEST_F(CudaDriverTest, MissingLibraryIsNamed) {
  absl::StatusOr<std::unique_ptr<Driver>> d =
      Driver::load("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(
      std::string(d.status().message()),
      AllOf(StartsWith("no CUDA driver found: /nonexistent/libcuda.so.1"),
            HasSubstr("set NN_CUDA_DRIVER to its path")));
}

TEST_F(CudaDriverTest, LibraryWithoutTheEntryPointsIsRefused) {
  absl::StatusOr<std::unique_ptr<Driver>> d =
      Driver::load(NN_TEST_ARTIFACT_V1_PATH);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()),
              StrEq(std::string(NN_TEST_ARTIFACT_V1_PATH) +
                    " is not a CUDA driver nn can use: it has no cuInit (nn "
                    "needs a CUDA 12 or newer driver)"));
}

TEST_F(CudaDriverTest, ReportsTheDevices) {
  setenv("NN_FAKE_CUDA_DEVICES", "2", 1);
  std::unique_ptr<Driver> d = loadFake();
  ASSERT_TRUE(d);
  EXPECT_EQ(d->deviceCount(), 2);
  EXPECT_EQ(d->version(), 13000);
  EXPECT_TRUE(d->checkDevice(1).ok());
  EXPECT_THAT(std::string(d->checkDevice(2).message()),
              StrEq("device 2 requested, 2 devices present"));
  EXPECT_THAT(std::string(d->checkDevice(-1).message()),
              StrEq("device -1 requested, 2 devices present"));
}

TEST_F(CudaDriverTest, ADriverWithoutGpusLoadsWithNone) {
  // cuInit's CUDA_ERROR_NO_DEVICE is a machine without GPUs, not an error.
  setenv("NN_FAKE_CUDA_DEVICES", "0", 1);
  std::unique_ptr<Driver> d = loadFake();
  ASSERT_TRUE(d);
  EXPECT_EQ(d->deviceCount(), 0);
  EXPECT_THAT(std::string(d->checkDevice(0).message()),
              StrEq("device 0 requested, no CUDA device present"));
  EXPECT_THAT(std::string(d->use(0).message()),
              StrEq("device 0 requested, no CUDA device present"));
}

TEST_F(CudaDriverTest, CheckNamesTheCallAndTheError) {
  std::unique_ptr<Driver> d = loadFake();
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->check(CUDA_SUCCESS, "cuInit").ok());
  absl::Status oom = d->check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(64 bytes)");
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(oom.message()),
              StrEq("cuMemAlloc(64 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY "
                    "(out of memory)"));
  // A name without a description, and a code the driver does not know.
  EXPECT_THAT(std::string(d->check(CUDA_ERROR_NO_DEVICE, "cuInit").message()),
              StrEq("cuInit failed: CUDA_ERROR_NO_DEVICE"));
  EXPECT_THAT(std::string(d->check(999, "cuDeviceGet").message()),
              StrEq("cuDeviceGet failed: CUresult 999"));
}

TEST_F(CudaDriverTest, UseMakesTheContextCurrent) {
  setenv("NN_FAKE_CUDA_MEMORY", "1048576", 1);
  std::unique_ptr<Driver> d = loadFake();
  ASSERT_TRUE(d);
  ASSERT_TRUE(d->use(0).ok());
  CUdeviceptr p = 0;
  ASSERT_TRUE(d->check(d->cuMemAlloc(&p, 4096), "cuMemAlloc").ok());
  size_t free = 0, total = 0;
  ASSERT_TRUE(d->check(d->cuMemGetInfo(&free, &total), "cuMemGetInfo").ok());
  EXPECT_EQ(total, 1048576u);
  EXPECT_EQ(free, 1048576u - 4096u);
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  ASSERT_TRUE(d->check(d->cuMemcpyHtoD(p, in, sizeof in), "cuMemcpyHtoD").ok());
  ASSERT_TRUE(
      d->check(d->cuMemcpyDtoH(out, p, sizeof out), "cuMemcpyDtoH").ok());
  EXPECT_EQ(out[3], 4.0f);
  EXPECT_TRUE(d->check(d->cuMemFree(p), "cuMemFree").ok());
  EXPECT_THAT(std::string(d->use(1).message()),
              StrEq("device 1 requested, 1 device present"));
}

// The real driver, where this machine has one.
TEST(CudaDriverTest_CUDA, ReportsTheRealDevices) {
  absl::StatusOr<std::unique_ptr<Driver>> d =
      Driver::load(std::string(kDriverLibrary));
  if (!d.ok())
    GTEST_SKIP() << d.status().message();
  if ((*d)->deviceCount() == 0)
    GTEST_SKIP() << "the CUDA driver reports no GPU";
  EXPECT_GE((*d)->version(), 12000);
  ASSERT_TRUE((*d)->use(0).ok());
  size_t free = 0, total = 0;
  ASSERT_TRUE(
      (*d)->check((*d)->cuMemGetInfo(&free, &total), "cuMemGetInfo").ok());
  EXPECT_GT(total, 0u);
  EXPECT_LE(free, total);
}

} // namespace
