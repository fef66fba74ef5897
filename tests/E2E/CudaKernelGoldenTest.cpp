//===- CudaKernelGoldenTest.cpp - The op-set goldens through CUDA kernels -===//
//
// Every op-set case (OpGolden.h) and every seed model (eval mode) is traced,
// optimized and lowered by the CUDA kernel pipeline, and its kernels
// emitted as CUDA C++ (nn/Conversion/CUDA/EmitCuda.h). Then, with no GPU
// needed:
// - CompilesForSm90: NVRTC compiles the source to PTX and an sm_90 cubin
//   (skipped, saying so, where NVRTC is not installed);
// - the same source, compiled as host C++ under the emulation header
//   (Inputs/CudaEmulation.h in tests/Unit/Conversion), runs the launch plan:
//   an op case's outputs must match PyTorch's goldens with the CPU suite's
//   tolerances, a seed model's the CPU's compiled forward.
//
//===----------------------------------------------------------------------===//

#include "DeterministicValues.h"
#include "EmulatedKernels.h"
#include "OpGolden.h"

#include "models/SeedModels.h"

#include "nn/Conversion/CUDA/EmitCuda.h"
#include "nn/Conversion/CUDA/Nvrtc.h"
#include "nn/Conversion/Passes.h"
#include "nn/Runtime/Cuda.h"
#include "nn/Runtime/CudaImage.h"

#include "Cuda/Executable.h"
#include "Cuda/Memory.h"

#include "gmock/gmock.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <memory>

namespace nn::testing {
namespace {

namespace cuda = mlir::nn::cuda;

/// The case's kernels and plans; a failure message instead where the
/// pipeline or the emitter refuses it.
struct Emitted {
  cuda::CudaProgram program;
  std::string error;
};

/// Emits the kernels of `traced` (optimized here).
Emitted emitTraced(TracedModule &traced) {
  traced.optimize();
  mlir::DialectRegistry registry;
  mlir::nn::registerCodegenDialects(registry);
  mlir::MLIRContext context(registry);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(traced.to_string(), &context);
  Emitted emitted;
  if (!module) {
    emitted.error = "the traced IR does not parse: " + diagnostics;
    return emitted;
  }
  mlir::PassManager pm(&context);
  cuda::buildCudaKernelPipeline(pm);
  if (mlir::failed(pm.run(*module))) {
    emitted.error = "the CUDA kernel pipeline fails: " + diagnostics;
    return emitted;
  }
  mlir::FailureOr<cuda::CudaProgram> program = cuda::emitCudaProgram(*module);
  if (mlir::failed(program)) {
    emitted.error = "the emitter fails: " + diagnostics;
    return emitted;
  }
  emitted.program = std::move(*program);
  return emitted;
}

Emitted emit(const OpCase &c, const Golden &golden) {
  std::vector<TensorSpec> specs;
  for (const Tensor &t : golden.inputs)
    specs.emplace_back(t.shape(), t.dtype());
  Module root(c.name);
  TracedModule traced = trace(root, specs, c.fn);
  return emitTraced(traced);
}

/// Zero tensors of the shapes and dtypes of `tensors`.
std::vector<Tensor> zerosLike(const std::vector<Tensor> &tensors) {
  std::vector<Tensor> zeros;
  for (const Tensor &t : tensors)
    zeros.push_back(Tensor::zeros(t.shape(), t.dtype()));
  return zeros;
}

const cuda::LaunchPlan *forwardPlan(const cuda::CudaProgram &program) {
  for (const cuda::LaunchPlan &plan : program.plans)
    if (plan.function == "forward")
      return &plan;
  return nullptr;
}

/// Runs `plan` on the host: `state`, `inputs` and `outputs` are its
/// arguments in that order. A failure is a gtest failure.
void runPlan(const EmulatedKernels &kernels, const cuda::LaunchPlan &plan,
             std::vector<Tensor> &state, std::vector<Tensor> &inputs,
             std::vector<Tensor> &outputs) {
  std::vector<void *> arguments;
  for (std::vector<Tensor> *tensors : {&state, &inputs, &outputs})
    for (Tensor &t : *tensors)
      arguments.push_back(t.raw_data());
  // Temporaries start as NaN bytes, so a kernel that reads what nothing
  // wrote shows.
  std::vector<std::unique_ptr<char[]>> owned;
  std::vector<void *> base;
  for (const cuda::PlanBuffer &buffer : plan.buffers) {
    if (buffer.kind == cuda::PlanBuffer::Kind::Argument) {
      ASSERT_LT(buffer.argument, arguments.size())
          << "the plan takes more arguments than state, inputs and outputs";
      base.push_back(arguments[buffer.argument]);
      continue;
    }
    owned.emplace_back(new char[std::max<int64_t>(buffer.bytes, 1)]);
    if (buffer.kind == cuda::PlanBuffer::Kind::Constant)
      std::memcpy(owned.back().get(), buffer.data.data(), buffer.bytes);
    else
      std::memset(owned.back().get(), 0xff, buffer.bytes);
    base.push_back(owned.back().get());
  }
  for (const cuda::PlanLaunch &launch : plan.launches) {
    EmulatedKernels::Entry entry = kernels.entry(launch.kernel);
    ASSERT_NE(entry, nullptr) << launch.kernel << " is not in the source";
    std::vector<void *> params;
    for (unsigned b : launch.buffers)
      params.push_back(base[b]);
    if (launch.iterations > 0)
      entry(params.data(), launch.gridSize(), cuda::kBlockSize);
  }
}

/// Compiles `program` with NVRTC for GPU 0 and runs its forward there on
/// copies of `state` and `inputs`, into `outputs` (host tensors, for their
/// shapes and dtypes, then the results).
void runOnGpu(const cuda::CudaProgram &program, const std::string &name,
              const std::vector<Tensor> &state,
              const std::vector<Tensor> &inputs, std::vector<Tensor> &outputs) {
  nn::cuda::DeviceProperties gpu = nn::cuda::get_device_properties(0);
  cuda::NvrtcOptions options;
  options.arch = gpu.arch();
  llvm::Expected<cuda::NvrtcOutput> image =
      cuda::compileCuda(program.source, name + ".cu", options);
  ASSERT_TRUE(static_cast<bool>(image)) << llvm::toString(image.takeError());
  namespace detail = nn::cuda::detail;
  auto executable =
      detail::Executable::load(detail::driverOrThrow(), detail::allocatorFor(0),
                               0, image->cubin, program.plans);
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<Tensor> onGpu;
  std::vector<detail::CUdeviceptr> arguments;
  for (const std::vector<Tensor> *tensors :
       {&state, &inputs, const_cast<const std::vector<Tensor> *>(&outputs)})
    for (const Tensor &t : *tensors) {
      onGpu.push_back(tensors == &outputs
                          ? Tensor::zeros(t.shape(), t.dtype(), Device::cuda())
                          : t.to(Device::cuda()));
      arguments.push_back(reinterpret_cast<detail::CUdeviceptr>(
          onGpu.back().storage()->data()));
    }
  absl::Status run = (*executable)->run("forward", arguments);
  ASSERT_TRUE(run.ok()) << run;
  for (size_t i = 0; i < outputs.size(); ++i)
    outputs[i] = onGpu[onGpu.size() - outputs.size() + i].to(Device::cpu());
}

/// Skips the test, saying why, where no GPU can be used.
#define SKIP_WITHOUT_GPU()                                                     \
  if (!nn::cuda::is_available())                                               \
  GTEST_SKIP() << "no CUDA GPU here"

class CudaKernelEmulatedTest : public ::testing::TestWithParam<OpCase> {};
class CudaKernelNvrtcTest : public ::testing::TestWithParam<OpCase> {};
class CudaKernelGpuTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(CudaKernelGpuTest, MatchesPyTorch) {
  SKIP_WITHOUT_GPU();
  const OpCase &c = GetParam();
  Golden golden = loadGolden(c);
  Emitted emitted = emit(c, golden);
  ASSERT_EQ(emitted.error, "");
  std::vector<Tensor> outputs = zerosLike(golden.outputs);
  runOnGpu(emitted.program, c.name, {}, golden.inputs, outputs);
  for (size_t i = 0; i < outputs.size(); ++i)
    expectClose(outputs[i], golden.outputs[i], c.tolerance,
                c.name + " output." + std::to_string(i));
}

TEST_P(CudaKernelEmulatedTest, MatchesPyTorch) {
  const OpCase &c = GetParam();
  Golden golden = loadGolden(c);
  Emitted emitted = emit(c, golden);
  ASSERT_EQ(emitted.error, "");
  const cuda::LaunchPlan *plan = forwardPlan(emitted.program);
  ASSERT_NE(plan, nullptr) << "no plan for forward";

  EmulatedKernels kernels;
  std::string error = kernels.compile(emitted.program.source, c.name);
  if (error == kNoCompiler)
    GTEST_SKIP() << error;
  ASSERT_EQ(error, "");

  std::vector<Tensor> state, outputs = zerosLike(golden.outputs);
  runPlan(kernels, *plan, state, golden.inputs, outputs);
  for (size_t i = 0; i < outputs.size(); ++i)
    expectClose(outputs[i], golden.outputs[i], c.tolerance,
                c.name + " output." + std::to_string(i));
}

/// Expects NVRTC to compile `program` for sm_90, every kernel of its plans
/// in the PTX and compiled by ptxas to the cubin (its report names each).
void expectCompilesForSm90(const cuda::CudaProgram &program,
                           const std::string &name) {
  cuda::NvrtcOptions options;
  options.extraOptions = {"--ptxas-options=-v"};
  llvm::Expected<cuda::NvrtcOutput> out =
      cuda::compileCuda(program.source, name + ".cu", options);
  ASSERT_TRUE(static_cast<bool>(out)) << llvm::toString(out.takeError());
  EXPECT_FALSE(out->ptx.empty());
  EXPECT_FALSE(out->cubin.empty());
  for (const cuda::LaunchPlan &plan : program.plans)
    for (const cuda::PlanLaunch &launch : plan.launches) {
      EXPECT_NE(out->ptx.find(".entry " + launch.kernel + "("),
                std::string::npos)
          << launch.kernel << " is not in the PTX";
      EXPECT_NE(
          out->log.find("Compiling entry function '" + launch.kernel + "'"),
          std::string::npos)
          << "ptxas says nothing of " << launch.kernel << ":\n"
          << out->log;
    }
}

/// Skips the test, saying why, where NVRTC cannot be loaded.
#define SKIP_WITHOUT_NVRTC()                                                   \
  if (llvm::Expected<std::string> version = cuda::nvrtcVersion(); !version)    \
  GTEST_SKIP() << "NVRTC is not installed: "                                   \
               << llvm::toString(version.takeError())

TEST_P(CudaKernelNvrtcTest, CompilesForSm90) {
  SKIP_WITHOUT_NVRTC();
  const OpCase &c = GetParam();
  Golden golden = loadGolden(c);
  Emitted emitted = emit(c, golden);
  ASSERT_EQ(emitted.error, "");
  expectCompilesForSm90(emitted.program, c.name);
}

class CudaKernelSeedModelTest
    : public ::testing::TestWithParam<models::ModelCase> {};

/// A seed model's inputs: uniform floats, token ids below 32.
/// The state `plan` takes, from `traced`, in its order.
std::vector<Tensor> stateOf(const TracedModule &traced,
                            const cuda::LaunchPlan &plan) {
  std::vector<Tensor> state;
  for (const std::string &name : plan.state) {
    const Tensor *t = traced.state().find(name);
    if (!t)
      throw Error("no state named " + name);
    state.push_back(*t);
  }
  return state;
}

/// A seed model in eval mode on its inputs: what the CPU's compiled
/// forward gives, and the model's kernels with the state their plan takes.
struct SeedModelRun {
  std::vector<Tensor> inputs, expected, state;
  Emitted emitted;
  const cuda::LaunchPlan *plan = nullptr;
};

void prepare(const models::ModelCase &c, SeedModelRun &run) {
  std::shared_ptr<Module> model = c.make(/*seed=*/0);
  model->eval();
  run.inputs = deterministicInputs(c.inputs);
  TracedModule traced = c.trace(model);
  auto expected = compile(traced.clone())->run(run.inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  run.expected = std::move(*expected);
  run.emitted = emitTraced(traced);
  ASSERT_EQ(run.emitted.error, "");
  run.plan = forwardPlan(run.emitted.program);
  ASSERT_NE(run.plan, nullptr) << "no plan for forward";
  run.state = stateOf(traced, *run.plan);
}

/// Expects `outputs` to match the CPU's. The tolerance is the convolution
/// goldens' (OpsConvolutionTest's kConv): the CPU's kernels sum in packed
/// blocks, the emitted kernels in order.
void expectMatchesTheCpu(const std::vector<Tensor> &outputs,
                         const SeedModelRun &run, const std::string &name) {
  for (size_t i = 0; i < outputs.size(); ++i)
    expectClose(outputs[i], run.expected[i], Tolerance{1e-4, 1e-5},
                name + " output." + std::to_string(i));
}

TEST_P(CudaKernelSeedModelTest, EmulatedMatchesTheCpu) {
  const models::ModelCase &c = GetParam();
  SeedModelRun run;
  ASSERT_NO_FATAL_FAILURE(prepare(c, run));
  EmulatedKernels kernels;
  std::string error = kernels.compile(run.emitted.program.source, c.name);
  if (error == kNoCompiler)
    GTEST_SKIP() << error;
  ASSERT_EQ(error, "");
  std::vector<Tensor> outputs = zerosLike(run.expected);
  runPlan(kernels, *run.plan, run.state, run.inputs, outputs);
  expectMatchesTheCpu(outputs, run, c.name);
}

TEST_P(CudaKernelSeedModelTest, RunsOnTheGpuAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  const models::ModelCase &c = GetParam();
  SeedModelRun run;
  ASSERT_NO_FATAL_FAILURE(prepare(c, run));
  std::vector<Tensor> outputs = zerosLike(run.expected);
  runOnGpu(run.emitted.program, c.name, run.state, run.inputs, outputs);
  expectMatchesTheCpu(outputs, run, c.name);
}

TEST_P(CudaKernelSeedModelTest, CompilesForSm90) {
  SKIP_WITHOUT_NVRTC();
  const models::ModelCase &c = GetParam();
  std::shared_ptr<Module> model = c.make(/*seed=*/0);
  model->eval();
  TracedModule traced = c.trace(model);
  Emitted emitted = emitTraced(traced);
  ASSERT_EQ(emitted.error, "");
  expectCompilesForSm90(emitted.program, c.name);
}

INSTANTIATE_TEST_SUITE_P(
    SeedModels, CudaKernelSeedModelTest,
    ::testing::ValuesIn(models::seed_models()),
    [](const ::testing::TestParamInfo<models::ModelCase> &info) {
      return info.param.name;
    });

std::vector<OpCase> allCases() {
  std::vector<OpCase> cases;
  for (auto family :
       {activationOpCases, elementwiseOpCases, denseOpCases, lossOpCases,
        normalizationOpCases, shapeOpCases, attentionOpCases,
        convolutionOpCases, fusedOpCases, halfOpCases}) {
    std::vector<OpCase> more = family();
    cases.insert(cases.end(), more.begin(), more.end());
  }
  return cases;
}

/// Writes what nn-gpu-check runs for `cases` into `dir`: cases.txt and,
/// per case, <family>/<name>.cuda (its kernels compiled for `arch` and its
/// plans, nn/Runtime/CudaImage.h) and <family>/<name>.cu (their source).
void exportForGpuCheck(const std::vector<OpCase> &cases, const std::string &dir,
                       const std::string &arch) {
  std::string manifest;
  for (const OpCase &c : cases) {
    SCOPED_TRACE(c.family + "/" + c.name);
    Emitted emitted = emit(c, loadGolden(c));
    ASSERT_EQ(emitted.error, "");
    cuda::NvrtcOptions options;
    options.arch = arch;
    llvm::Expected<cuda::NvrtcOutput> compiled =
        cuda::compileCuda(emitted.program.source, c.name + ".cu", options);
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    nn::cuda::CudaImage image{arch, std::move(compiled->ptx),
                              std::move(compiled->cubin),
                              emitted.program.plans};
    std::string folder = dir + "/" + c.family;
    ASSERT_FALSE(llvm::sys::fs::create_directories(folder)) << folder;
    for (auto [file, bytes] :
         {std::pair(folder + "/" + c.name + ".cuda",
                    nn::cuda::serialize_cuda_image(image)),
          std::pair(folder + "/" + c.name + ".cu", emitted.program.source)}) {
      std::error_code ec;
      llvm::raw_fd_ostream out(file, ec);
      ASSERT_FALSE(ec) << file << ": " << ec.message();
      out << bytes;
    }
    manifest += c.family + " " + c.name + " " +
                std::to_string(c.tolerance.rtol) + " " +
                std::to_string(c.tolerance.atol) + "\n";
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(dir + "/cases.txt", ec);
  ASSERT_FALSE(ec) << ec.message();
  out << manifest;
}

// scripts/gpu-check.sh prepare: every op-set case, for nn-gpu-check to run
// on a machine with a GPU (and no compiler).
TEST(CudaKernelGpuCheck, ExportsEveryCase) {
  const char *dir = std::getenv("NN_GPU_CHECK_DIR");
  if (!dir)
    GTEST_SKIP() << "set NN_GPU_CHECK_DIR to write the GPU check's cases "
                    "(scripts/gpu-check.sh prepare)";
  SKIP_WITHOUT_NVRTC();
  const char *arch = std::getenv("NN_GPU_CHECK_ARCH");
  exportForGpuCheck(allCases(), dir, arch ? arch : "sm_90");
}

// What the export holds runs: nn-gpu-check on a few cases over the fake
// driver, which executes each case's kernels compiled as host C++.
TEST(CudaKernelGpuCheck, NnGpuCheckRunsTheExportOnTheFakeGpu) {
  SKIP_WITHOUT_NVRTC();
  std::vector<OpCase> all = allCases(), some;
  for (const char *name :
       {"relu6_2x3x5", "log_softmax_3x17_dim1", "addmm_bf16"})
    for (const OpCase &c : all)
      if (c.name == name)
        some.push_back(c);
  ASSERT_EQ(some.size(), 3u);
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nn-gpu-check", dir));
  ASSERT_NO_FATAL_FAILURE(exportForGpuCheck(some, dir.str().str(), "sm_90"));
  for (const OpCase &c : some) {
    std::string id = c.family + "/" + c.name;
    auto source = llvm::MemoryBuffer::getFile(dir + "/" + c.family + "/" +
                                              c.name + ".cu");
    ASSERT_TRUE(source);
    EmulatedKernels kernels;
    std::string error = kernels.compile((*source)->getBuffer().str(), c.name);
    if (error == kNoCompiler)
      GTEST_SKIP() << error;
    ASSERT_EQ(error, "");
    std::string log = dir.str().str() + "/" + c.name + ".log";
    std::string driver = "NN_CUDA_DRIVER=" NN_TEST_FAKE_CUDA_DRIVER_PATH;
    std::string emulation = "NN_FAKE_CUDA_KERNELS=" + kernels.path();
    std::string goldens = NN_SOURCE_DIR "/tests/reference/goldens";
    llvm::StringRef args[] = {NN_GPU_CHECK_PATH, dir, goldens, "--only", id};
    llvm::StringRef env[] = {driver, emulation};
    std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
    int rc = llvm::sys::ExecuteAndWait(NN_GPU_CHECK_PATH, args, env, redirects);
    auto output = llvm::MemoryBuffer::getFile(log);
    ASSERT_TRUE(output);
    EXPECT_EQ(rc, 0) << (*output)->getBuffer().str();
    EXPECT_THAT((*output)->getBuffer().str(),
                ::testing::HasSubstr("ok   " + id +
                                     "\n1 of 1 cases match "
                                     "PyTorch on cuda:0"));
  }
  llvm::sys::fs::remove_directories(dir);
}

std::string familyAndName(const ::testing::TestParamInfo<OpCase> &info) {
  return info.param.family + "_" + info.param.name;
}

INSTANTIATE_TEST_SUITE_P(OpSet, CudaKernelEmulatedTest,
                         ::testing::ValuesIn(allCases()), familyAndName);
INSTANTIATE_TEST_SUITE_P(OpSet, CudaKernelNvrtcTest,
                         ::testing::ValuesIn(allCases()), familyAndName);
INSTANTIATE_TEST_SUITE_P(OpSet, CudaKernelGpuTest,
                         ::testing::ValuesIn(allCases()), familyAndName);

} // namespace
} // namespace nn::testing
