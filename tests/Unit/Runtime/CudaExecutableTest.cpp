//===- CudaExecutableTest.cpp - Launch plans run through the driver -------===//
//
// Executable over the fake driver (Inputs/fake_libcuda.c), which finds
// kernels by their PTX entries and counts launches without running them:
// the plan's kernels are resolved at load, its constants uploaded once, its
// temporaries allocated for a run and returned after it, and every launch
// with iterations queued. What the kernels compute is tested on a GPU and,
// emulated, in tests/E2E/CudaKernelGoldenTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "Cuda/Executable.h"

#include "FakeCudaDriver.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace nn::cuda;
using namespace nn::cuda::detail;
using ::testing::StrEq;

namespace {

constexpr const char *kPtx = ".version 9.0\n.target sm_90\n"
                             ".visible .entry fill(\n.param .u64 p\n)\n{}\n"
                             ".visible .entry add(\n.param .u64 p\n)\n{}\n";

/// forward(x, y): t = fill(); y = add(x, t, constant), and an empty launch.
LaunchPlan forwardPlan() {
  LaunchPlan plan;
  plan.function = "forward";
  plan.buffers.push_back({PlanBuffer::Kind::Argument, 0});
  plan.buffers.push_back({PlanBuffer::Kind::Argument, 1});
  plan.buffers.push_back({PlanBuffer::Kind::Temporary, 0, 4096});
  PlanBuffer constant{PlanBuffer::Kind::Constant, 0, 8};
  constant.data = {1, 2, 3, 4, 5, 6, 7, 8};
  plan.buffers.push_back(constant);
  plan.launches.push_back({"fill", {2}, 1024});
  plan.launches.push_back({"add", {0, 2, 3, 1}, 1024});
  plan.launches.push_back({"add", {0, 2, 3, 1}, 0});
  return plan;
}

class CudaExecutableTest : public ::testing::Test {
protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Driver>> d =
        Driver::load(NN_TEST_FAKE_CUDA_DRIVER_PATH);
    ASSERT_TRUE(d.ok()) << d.status();
    driver = std::move(*d);
    allocator = std::make_unique<CachingAllocator>(*driver, 0);
  }
  void TearDown() override {
    allocator.reset();
    driver.reset();
  }
  std::unique_ptr<Driver> driver;
  std::unique_ptr<CachingAllocator> allocator;
};

TEST_F(CudaExecutableTest, RunsAPlansLaunchesWithItsBuffers) {
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Executable::load(*driver, *allocator, 0, kPtx, {forwardPlan()});
  ASSERT_TRUE(executable.ok()) << executable.status();
  ASSERT_NE((*executable)->plan("forward"), nullptr);
  EXPECT_EQ((*executable)->plan("backward"), nullptr);
  // The constant is on the device from load on; nothing else is held.
  EXPECT_EQ(allocator->stats().allocated, 512u);

  absl::StatusOr<CUdeviceptr> x = allocator->allocate(4096, nullptr);
  absl::StatusOr<CUdeviceptr> y = allocator->allocate(4096, nullptr);
  ASSERT_TRUE(x.ok() && y.ok());
  size_t held = allocator->stats().allocated;
  int before = nn::test::fakeCudaLaunches();
  absl::Status run = (*executable)->run("forward", {*x, *y});
  ASSERT_TRUE(run.ok()) << run;
  // Two launches: the one over no iterations is not made.
  EXPECT_EQ(nn::test::fakeCudaLaunches(), before + 2);
  // The temporary went back to the cache once the launches were queued.
  EXPECT_EQ(allocator->stats().allocated, held);
  EXPECT_GT(allocator->stats().reserved, held);
  // A second run reuses the cached block: steady state allocates nothing.
  size_t reserved = allocator->stats().reserved;
  ASSERT_TRUE((*executable)->run("forward", {*x, *y}).ok());
  EXPECT_EQ(allocator->stats().reserved, reserved);
  (void)allocator->free(*x);
  (void)allocator->free(*y);
}

TEST_F(CudaExecutableTest, BadCallsAreNamed) {
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Executable::load(*driver, *allocator, 0, kPtx, {forwardPlan()});
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_THAT(std::string((*executable)->run("backward", {}).message()),
              StrEq("the compiled module has no function backward"));
  EXPECT_THAT(std::string((*executable)->run("forward", {0}).message()),
              StrEq("forward takes 2 arguments (state, inputs and outputs), "
                    "1 given"));
}

TEST_F(CudaExecutableTest, AKernelMissingFromTheImageIsNamedAtLoad) {
  LaunchPlan plan = forwardPlan();
  plan.launches[1].kernel = "mul";
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Executable::load(*driver, *allocator, 0, kPtx, {plan});
  ASSERT_FALSE(executable.ok());
  EXPECT_THAT(std::string(executable.status().message()),
              StrEq("cuModuleGetFunction(\"mul\") failed: "
                    "CUDA_ERROR_NOT_FOUND (named symbol not found)"));
  // What was uploaded before the failure is returned.
  EXPECT_EQ(allocator->stats().allocated, 0u);
}

TEST_F(CudaExecutableTest, TheConstantsLiveAsLongAsTheExecutable) {
  LaunchPlan plan = forwardPlan();
  absl::StatusOr<std::unique_ptr<Executable>> executable =
      Executable::load(*driver, *allocator, 0, kPtx, {plan});
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(allocator->stats().allocated, 512u);
  executable->reset();
  EXPECT_EQ(allocator->stats().allocated, 0u);
}

} // namespace
