//===- CudaCompileTest.cpp - nn::compile for a GPU, run on the fake one ---===//
//
// nn::compile and nn::compile_to_file with CompileOptions::device a GPU,
// where the GPU is the fake driver (tests/Unit/Runtime/Inputs/
// fake_libcuda.c) running each launch through the model's own kernels
// compiled as host C++: the compiled artifact's whole GPU path (image,
// plan, state copies, host and device inputs and outputs, prepare after an
// in-place update) is checked against PyTorch's goldens without a GPU.
//
// Its own binary: the fake driver must be the process's driver before
// anything opens one.
//
//===----------------------------------------------------------------------===//

#include "models/SeedModels.h"
#include "models/SimpleMLP.h"

#include "DeterministicValues.h"
#include "E2ETestUtil.h"
#include "EmulatedKernels.h"
#include "OpGolden.h"

#include "nn/Conversion/CPU/CompileCache.h"
#include "nn/Conversion/CUDA/CudaArtifact.h"
#include "nn/Conversion/CUDA/Nvrtc.h"
#include "nn/Conversion/Passes.h"
#include "nn/nn.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <optional>

using namespace nn;
using nn::testing::EmulatedKernels;
using nn::testing::expectClose;
using nn::testing::loadSimpleMLPGolden;
using ::testing::HasSubstr;

namespace {

// Before anything opens the driver: the fake one.
const bool kFakeDriver = [] {
  setenv("NN_CUDA_DRIVER", NN_TEST_FAKE_CUDA_DRIVER_PATH, 1);
  return true;
}();

/// The kernels nn::compile emits for `traced` on a GPU, compiled as host
/// C++ and handed to the fake driver; "" or why not.
std::string emulate(const TracedModule &traced, EmulatedKernels &kernels,
                    const std::string &name) {
  mlir::DialectRegistry registry;
  mlir::nn::registerCodegenDialects(registry);
  mlir::MLIRContext context(registry);
  // With its locations: kernels are named after the modules they run.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(traced.to_string(true), &context);
  if (!module)
    return "the traced IR does not parse";
  mlir::FailureOr<mlir::nn::cuda::CudaProgram> program =
      mlir::nn::cuda::emitCudaKernels(*module, {});
  if (mlir::failed(program))
    return "the CUDA kernels cannot be emitted";
  if (std::string error = kernels.compile(program->source, name);
      !error.empty())
    return error;
  setenv("NN_FAKE_CUDA_KERNELS", kernels.path().c_str(), 1);
  return "";
}

/// torch.testing's float32 tolerances, and the convolution goldens' (the
/// CPU's kernels sum in packed blocks, the emitted ones in order).
constexpr nn::testing::Tolerance kFloat32, kConv{1e-4, 1e-5};

/// Skips the test, saying why, where NVRTC cannot compile kernels.
#define SKIP_WITHOUT_NVRTC()                                                   \
  if (llvm::Expected<std::string> nvrtc = mlir::nn::cuda::nvrtcVersion();      \
      !nvrtc)                                                                  \
  GTEST_SKIP() << llvm::toString(nvrtc.takeError())

class CudaCompileTest : public ::testing::Test {
protected:
  void SetUp() override {
    SKIP_WITHOUT_NVRTC();
    model->eval();
    model->load_state_dict(loadSimpleMLPGolden("weights.safetensors").tensors);
    traced = trace(model, {TensorSpec({64, 784})});
    std::string error = emulate(*traced, kernels, "simple_mlp");
    if (error == nn::testing::kNoCompiler)
      GTEST_SKIP() << error;
    ASSERT_EQ(error, "");
    input = loadSimpleMLPGolden("inputs.safetensors").tensors.at("input.0");
    expected =
        loadSimpleMLPGolden("outputs.safetensors").tensors.at("output.0");
  }
  models::SimpleMLP model;
  std::optional<TracedModule> traced;
  EmulatedKernels kernels;
  Tensor input, expected;
};

TEST_F(CudaCompileTest, CompileForAGpuRunsThereAsPyTorch) {
  CompileOptions options;
  options.device = Device::cuda();
  std::shared_ptr<Artifact> gpu = compile(*traced, options);
  EXPECT_EQ(gpu->device(), Device::cuda());
  // Host in, host out.
  absl::StatusOr<std::vector<Tensor>> out = gpu->run({input});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE(out->at(0).is_cuda());
  expectClose(out->at(0), expected, kFloat32, "output.0");
  // Device in, device out.
  out = gpu->run({input.to(Device::cuda())});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->at(0).is_cuda());
  expectClose(out->at(0).to(Device::cpu()), expected, kFloat32, "output.0");
  // The weights were copied at bind: an in-place update reaches the GPU
  // with prepare(), as on the CPU.
  for (auto &[name, p] : model->named_parameters()) {
    float *w = p.data_ptr<float>();
    for (int64_t i = 0; i < p.numel(); ++i)
      w[i] = 0;
  }
  ASSERT_TRUE(gpu->prepare().ok());
  out = gpu->run({input});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < out->at(0).numel(); ++i)
    ASSERT_EQ(out->at(0).item_as_double(i), 0.0);
}

TEST_F(CudaCompileTest, ASharedObjectForAGpuRunsOnEither) {
  std::string path = ::testing::TempDir() + "/simple_mlp_cuda.so";
  CompileOptions options;
  options.device = Device::cuda();
  options.cuda_arch = "sm_90";
  compile_to_file(*traced, path, options);
  StateDict weights = loadSimpleMLPGolden("weights.safetensors").tensors;
  for (Device device : {Device::cuda(), Device::cpu()}) {
    absl::StatusOr<std::shared_ptr<Artifact>> artifact =
        Artifact::load(path, device);
    ASSERT_TRUE(artifact.ok()) << artifact.status();
    ASSERT_TRUE((*artifact)->bind(weights).ok());
    std::vector<Tensor> outputs = {Tensor::zeros({64, 10})};
    ASSERT_TRUE((*artifact)->run_into({input}, outputs).ok());
    expectClose(outputs[0], expected, kFloat32, device.str());
  }
}

/// Sets an environment variable for its lifetime, then restores it.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = getenv(name))
      old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

// nn::compile for a GPU caches the image beside the CPU object: the second
// compile of the same model runs neither NVRTC nor the CPU back end.
TEST_F(CudaCompileTest, ASecondCompileTakesTheKernelsFromTheCache) {
  std::string folder = ::testing::TempDir() + "/nn-cache-XXXXXX";
  ASSERT_NE(mkdtemp(folder.data()), nullptr);
  ScopedEnv cacheDir("NN_CACHE_DIR", folder);
  using mlir::nn::CompileCache;
  CompileOptions options;
  options.device = Device::cuda();
  CompileCache::resetStats();
  compile(*traced, options);
  // The JIT's object and the GPU image: each missed and stored.
  mlir::nn::CompileCacheStats stats = CompileCache::stats();
  EXPECT_EQ(stats.hits, 0u);
  EXPECT_EQ(stats.misses, 2u);
  EXPECT_EQ(stats.stores, 2u);
  CompileCache::resetStats();
  std::shared_ptr<Artifact> cached = compile(*traced, options);
  stats = CompileCache::stats();
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 0u);
  absl::StatusOr<std::vector<Tensor>> out = cached->run({input});
  ASSERT_TRUE(out.ok()) << out.status();
  expectClose(out->at(0), expected, kFloat32, "output.0");
  // Another architecture is another image over the same CPU object (its
  // PTX runs on the later GPU).
  options.cuda_arch = "sm_80";
  CompileCache::resetStats();
  out = compile(*traced, options)->run({input});
  stats = CompileCache::stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  ASSERT_TRUE(out.ok()) << out.status();
  expectClose(out->at(0), expected, kFloat32, "output.0 (sm_80)");
}

TEST_F(CudaCompileTest, ABadArchitectureIsAnErrorThatSaysSo) {
  CompileOptions options;
  options.device = Device::cuda();
  options.cuda_arch = "sm90";
  EXPECT_THAT([&] { compile(*traced, options); },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("unknown CUDA architecture 'sm90'")));
  options.cuda_arch = "sm_90";
  options.device = Device::cuda(3);
  EXPECT_THAT([&] { compile(*traced, options); },
              ::testing::ThrowsMessage<Error>(
                  HasSubstr("device 3 requested, 1 device present")));
}

class CudaCompileSeedModelTest
    : public ::testing::TestWithParam<models::ModelCase> {};

// Each seed model (eval mode) compiled for a GPU: its outputs are the
// CPU-compiled model's, within the convolution goldens' tolerance (the
// CPU's kernels sum in packed blocks, the emitted ones in order).
TEST_P(CudaCompileSeedModelTest, RunsOnTheGpuAsOnTheCpu) {
  SKIP_WITHOUT_NVRTC();
  const models::ModelCase &c = GetParam();
  std::shared_ptr<Module> model = c.make(/*seed=*/0);
  model->eval();
  TracedModule traced = c.trace(model);
  EmulatedKernels kernels;
  std::string error = emulate(traced, kernels, c.name);
  if (error == nn::testing::kNoCompiler)
    GTEST_SKIP() << error;
  ASSERT_EQ(error, "");
  std::vector<Tensor> inputs = nn::testing::deterministicInputs(c.inputs);
  absl::StatusOr<std::vector<Tensor>> expected = compile(traced)->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  CompileOptions options;
  options.device = Device::cuda();
  absl::StatusOr<std::vector<Tensor>> outputs =
      compile(traced, options)->run(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), expected->size());
  for (size_t i = 0; i < outputs->size(); ++i)
    expectClose((*outputs)[i], (*expected)[i], kConv,
                c.name + " output." + std::to_string(i));
}

INSTANTIATE_TEST_SUITE_P(SeedModels, CudaCompileSeedModelTest,
                         ::testing::ValuesIn(models::seed_models()),
                         [](const auto &info) { return info.param.name; });

} // namespace
