//===- CudaApiTest.cpp - nn::cuda and Device ------------------------------===//
//
// Built twice (see CMakeLists.txt): CudaApiFakeDriverTests, with
// NN_CUDA_DRIVER naming the fake driver (Inputs/fake_libcuda.c, two GPUs),
// and CudaApiNoDriverTests, with NN_CUDA_DRIVER naming a file that does
// not exist, as on a machine without the NVIDIA driver. main() sets the
// variable before anything loads the driver.
//
//===----------------------------------------------------------------------===//

#include "ArtifactTestTable.h"
#include "TensorTestUtil.h"
#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Cuda.h"
#include "nn/Runtime/Error.h"
#include "nn/Runtime/Safetensors.h"
#include "nn/Runtime/Tensor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace nn;
using nn::test::valuesOf;
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

TEST(CudaTensorTest, ZerosOnAGpu) {
  Tensor t = Tensor::zeros({2, 3}, DType::f32, Device::cuda(1));
  EXPECT_EQ(t.device(), Device::cuda(1));
  EXPECT_TRUE(t.is_cuda());
  EXPECT_EQ(t.to_string(), "Tensor[float32, 2x3, cuda:1]");
  EXPECT_THAT(valuesOf(t), ::testing::Each(0.0));
  // The fake driver's addresses fault on the host, as a GPU's do: nothing
  // may hand one out as host memory.
  EXPECT_THAT([&] { t.data_ptr<float>(); },
              ThrowsMessage<Error>(StrEq(
                  "data access on Tensor[float32, 2x3, cuda:1]: its data is in "
                  "GPU memory, which the CPU cannot address; copy it to the "
                  "CPU with to(Device::cpu())")));
}

TEST(CudaTensorTest, ToMovesBetweenDevices) {
  Tensor host = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor gpu = host.to(Device::cuda());
  EXPECT_EQ(gpu.device(), Device::cuda(0));
  EXPECT_FALSE(gpu.shares_storage(host));
  EXPECT_TRUE(gpu.to(Device::cuda(0)).shares_storage(gpu)); // already there
  Tensor other = gpu.to(Device::cuda(1));
  EXPECT_EQ(other.device(), Device::cuda(1));
  Tensor back = other.to(Device::cpu());
  EXPECT_FALSE(back.is_cuda());
  EXPECT_EQ(valuesOf(back), valuesOf(host));
  EXPECT_EQ(valuesOf(gpu), valuesOf(host)); // elements read across
}

TEST(CudaTensorTest, CopyCloneAndConvertOnTheGpu) {
  Tensor host = Tensor::from_vector<float>({1.5f, -2, 3}, {3});
  Tensor gpu = Tensor::zeros({3}, DType::f32, Device::cuda());
  gpu.copy_(host);
  EXPECT_EQ(valuesOf(gpu), valuesOf(host));
  Tensor copy = gpu.clone();
  EXPECT_EQ(copy.device(), Device::cuda());
  EXPECT_FALSE(copy.shares_storage(gpu));
  gpu.copy_(Tensor::zeros({3})); // the clone keeps its data
  EXPECT_EQ(valuesOf(copy), valuesOf(host));
  Tensor doubled = copy.to(DType::f64);
  EXPECT_EQ(doubled.device(), Device::cuda());
  EXPECT_EQ(doubled.dtype(), DType::f64);
  EXPECT_EQ(valuesOf(doubled), valuesOf(host));
  Tensor into = Tensor::zeros({3});
  into.copy_(copy);
  EXPECT_EQ(valuesOf(into), valuesOf(host));
  EXPECT_THAT([&] { copy.copy_(Tensor::zeros({4})); },
              ThrowsMessage<Error>(HasSubstr("differ in shape")));
}

TEST(CudaTensorTest, SafetensorsOfGpuTensorsAreTheHostsBytes) {
  Tensor w = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});
  StateDict host, gpu;
  host.insert("w", w);
  gpu.insert("w", w.to(Device::cuda(1)));
  EXPECT_EQ(serialize_safetensors(gpu), serialize_safetensors(host));
}

TEST(CudaTensorTest, MemoryComesFromTheCachingAllocator) {
  // A freed tensor's block stays cached (the driver's free memory does not
  // grow back) and the next request of its size takes it.
  const void *first;
  int64_t held;
  {
    Tensor t = Tensor::zeros({1000}, DType::f32, Device::cuda(0));
    first = t.storage()->data();
    held = cuda::mem_get_info(0).free;
  }
  EXPECT_EQ(cuda::mem_get_info(0).free, held);
  Tensor again = Tensor::zeros({1000}, DType::f32, Device::cuda(0));
  EXPECT_EQ(again.storage()->data(), first);
  EXPECT_EQ(cuda::mem_get_info(0).free, held);
}

TEST(CudaTensorTest, MemoryStatisticsAsTorchCuda) {
  // cuda:1 for this test alone: the others use cuda:0 and cuda:1, so take
  // differences.
  cuda::empty_cache();
  int64_t allocated = cuda::memory_allocated(1);
  int64_t reserved = cuda::memory_reserved(1);
  cuda::reset_peak_memory_stats(1);
  {
    Tensor a = Tensor::zeros({1000}, DType::f32, Device::cuda(1)); // 4000 B
    Tensor b = Tensor::zeros({3, 1 << 20}, DType::f32, Device::cuda(1));
    EXPECT_EQ(cuda::memory_allocated(1), allocated + 4096 + (12 << 20));
    // a small segment and b's own (12 MiB, from 10 MiB a segment each)
    EXPECT_EQ(cuda::memory_reserved(1), reserved + (2 << 20) + (12 << 20));
  }
  EXPECT_EQ(cuda::memory_allocated(1), allocated);
  EXPECT_EQ(cuda::max_memory_allocated(1), allocated + 4096 + (12 << 20));
  EXPECT_EQ(cuda::memory_reserved(1), reserved + (14 << 20)); // cached
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(1), reserved);
  EXPECT_EQ(cuda::max_memory_reserved(1), reserved + (14 << 20));
  EXPECT_THAT(
      [] { cuda::memory_allocated(2); },
      ThrowsMessage<Error>(StrEq("device 2 requested, 2 devices present")));
}

/// A CPU model of one parameter "w", input and output, all float32[2].
std::shared_ptr<Artifact> cpuModel() {
  static const char *json =
      R"({"abi_version":2,)"
      R"("state":[{"name":"w","kind":"parameter","shape":[2],"dtype":"F32"}],)"
      R"("inputs":[{"name":"input.0","shape":[2],"dtype":"F32"}],)"
      R"("outputs":[{"name":"output.0","shape":[2],"dtype":"F32"}]})";
  static nn_artifact_v2 table = nn::testing::tableWith(
      json, [](void *, void *const *) -> int32_t { return 0; });
  absl::StatusOr<std::shared_ptr<Artifact>> artifact =
      Artifact::from_table(&table, nullptr, "model.so");
  EXPECT_TRUE(artifact.ok()) << artifact.status();
  return artifact.ok() ? *artifact : nullptr;
}

TEST(CudaArtifactTest, ACpuModelRefusesGpuTensorsByName) {
  std::shared_ptr<Artifact> model = cpuModel();
  ASSERT_TRUE(model);
  StateDict onGpu;
  onGpu.insert("w", Tensor::zeros({2}, DType::f32, Device::cuda(1)));
  EXPECT_THAT(std::string(model->bind(onGpu).message()),
              HasSubstr("parameter 'w' is on cuda:1; the model runs on cpu "
                        "and takes tensors on the CPU"));
  StateDict onCpu;
  onCpu.insert("w", Tensor::zeros({2}));
  ASSERT_TRUE(model->bind(onCpu).ok());
  absl::StatusOr<std::vector<Tensor>> out =
      model->run({Tensor::zeros({2}, DType::f32, Device::cuda())});
  EXPECT_THAT(std::string(out.status().message()),
              StrEq("input 'input.0' is on cuda:0; the model runs on cpu and "
                    "takes tensors on the CPU"));
  std::vector<Tensor> outputs = {
      Tensor::zeros({2}, DType::f32, Device::cuda())};
  EXPECT_THAT(
      std::string(model->run_into({Tensor::zeros({2})}, outputs).message()),
      HasSubstr("output 'output.0' is on cuda:0"));
}

#else

TEST(CudaTensorTest, WithoutADriverNoTensorGoesToAGpu) {
  auto noDriver = ThrowsMessage<Error>(
      StartsWith("no CUDA driver found: /nonexistent/libcuda.so.1"));
  EXPECT_THAT([] { Tensor::zeros({2}, DType::f32, Device::cuda()); }, noDriver);
  EXPECT_THAT([] { Tensor::zeros({2}).to(Device::cuda()); }, noDriver);
}

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
  EXPECT_THAT([] { cuda::memory_allocated(0); }, noDriver);
  EXPECT_NO_THROW(cuda::empty_cache()); // nothing to give back
}

#endif

} // namespace

int main(int argc, char **argv) {
  setenv("NN_CUDA_DRIVER", NN_TEST_CUDA_DRIVER, 1);
  setenv("NN_FAKE_CUDA_DEVICES", "2", 1);
  ::testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
