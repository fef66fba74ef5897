//===- nn-compile.cpp - nn module → shared object -------------------------===//
//
// Compiles a textual nn module (as nn::trace or nn-opt print it) ahead of
// time. --emit stops at any stage of the one compile pipeline
// (mlir::nn::CompileStage); each prints what the real compile has there:
//   nn         the module after nn-optimize (and --embed-weights)
//   kernels    described, state as arguments, @prepare hoisted, the
//              contractions called as micro-kernels
//   linalg     after the rest of nn became linalg on tensors
//   llvm-mlir  the LLVM dialect
//   llvm       LLVM IR with the artifact table
//   obj        a native object file
//   so         a shared object loadable by nn::Artifact (the default)
//   header     a C header for it: fixed-shape input and output structs and
//              <name>_run() over nn_artifact_run (nn/Runtime/CApi.h)
//   cuda       the CUDA C++ kernels --target=cuda compiles with NVRTC
//
// Shared objects come from the compile cache (nn/Conversion/CPU/CompileCache.h)
// when it holds one for the optimized IR and these options: $NN_CACHE_DIR,
// else $XDG_CACHE_HOME/nn, else ~/.cache/nn; --cache-dir overrides, --no-cache
// or NN_CACHE_DISABLE=1 turn it off, and --cache-log prints what happened
// ("nn-compile: cache hit <key>") on stderr.
//
// --target=cuda adds forward's GPU half (nn/Conversion/CUDA/CudaArtifact.h):
// its kernels compiled by NVRTC for --cuda-arch (default: GPU 0's, else
// sm_90) and their launch plans, which nn::Artifact::load(path,
// nn::Device::cuda()) runs.
//
// MLIR's pass-manager flags apply to the pipeline as in nn-opt:
// --mlir-print-ir-after-all, --mlir-print-ir-before=<pass>, --mlir-timing.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/CHeader.h"
#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/CPU/EmbedState.h"
#include "nn/Conversion/CPU/Toolchain.h"
#include "nn/Conversion/CUDA/CudaArtifact.h"
#include "nn/Conversion/Passes.h"
#include "nn/IR/InputLimits.h"
#include "nn/Runtime/Cuda.h"
#include "nn/Runtime/Safetensors.h"
#include "nn/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
enum class Emit {
  NN,
  Kernels,
  Linalg,
  LLVMMLIR,
  LLVMIR,
  Object,
  Shared,
  Header,
  Cuda
};
} // namespace

/// nn-compile's own options; --help lists these and MLIR's pass-manager and
/// printing flags, not the LLVM code generation flags linked in.
static cl::OptionCategory nnCategory("nn-compile options");
static cl::OptionCategory
    mlirCategory("MLIR pass manager and printing options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<model.mlir>"),
                                          cl::init("-"), cl::cat(nnCategory));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("path"),
                                           cl::init("-"), cl::cat(nnCategory));
static cl::opt<Emit>
    emit("emit", cl::desc("What to produce"), cl::init(Emit::Shared),
         cl::values(clEnumValN(Emit::NN, "nn", "optimized nn IR"),
                    clEnumValN(Emit::Kernels, "kernels",
                               "nn with the contractions as kernel calls"),
                    clEnumValN(Emit::Linalg, "linalg", "linalg on tensors"),
                    clEnumValN(Emit::LLVMMLIR, "llvm-mlir", "the LLVM dialect"),
                    clEnumValN(Emit::LLVMIR, "llvm", "LLVM IR"),
                    clEnumValN(Emit::Object, "obj", "a native object file"),
                    clEnumValN(Emit::Shared, "so", "a shared object"),
                    clEnumValN(Emit::Header, "header",
                               "a C header declaring the model's inputs and "
                               "outputs for nn_artifact_run"),
                    clEnumValN(Emit::Cuda, "cuda",
                               "the CUDA C++ of forward's GPU kernels")),
         cl::cat(nnCategory));
static cl::opt<bool> noOptimize("no-optimize",
                                cl::desc("Skip the nn-optimize pipeline"),
                                cl::cat(nnCategory));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("Compile cache folder (default: $NN_CACHE_DIR, "
                      "$XDG_CACHE_HOME/nn or ~/.cache/nn)"),
             cl::value_desc("path"), cl::cat(nnCategory));
static cl::opt<bool>
    noCache("no-cache", cl::desc("Neither read nor write the compile cache"),
            cl::cat(nnCategory));
static cl::opt<bool> cacheLog("cache-log",
                              cl::desc("Say on stderr whether the compile "
                                       "cache answered (hit, miss, rebuilt)"),
                              cl::cat(nnCategory));

static cl::opt<std::string> targetCpu(
    "target-cpu",
    cl::desc("CPU to generate code for: host (default), x86-64-v2, "
             "x86-64-v3, x86-64-v4 or an LLVM CPU name (haswell, znver4, "
             "skylake-avx512, ...)"),
    cl::value_desc("name"), cl::init("host"), cl::cat(nnCategory));
static cl::opt<std::string> targetFeatures(
    "target-features",
    cl::desc("ISA features to add to or remove from the target CPU's "
             "(+avx512f,-avx512vl)"),
    cl::value_desc("list"), cl::cat(nnCategory));

namespace {
enum class Target { CPU, CUDA };
} // namespace
static cl::opt<Target> target(
    "target", cl::desc("Where forward runs"), cl::init(Target::CPU),
    cl::values(clEnumValN(Target::CPU, "cpu", "the CPU (default)"),
               clEnumValN(Target::CUDA, "cuda",
                          "an NVIDIA GPU, and the CPU: the shared object "
                          "carries both, nn::Artifact::load picks one")),
    cl::cat(nnCategory));
static cl::opt<std::string> cudaArch(
    "cuda-arch",
    cl::desc("With --target=cuda, the GPU architecture the kernels are "
             "compiled for (sm_90; default: GPU 0's, else sm_90)"),
    cl::value_desc("sm_XY"), cl::cat(nnCategory));

static cl::opt<std::string> embedWeights(
    "embed-weights",
    cl::desc("Embed every parameter and buffer, from this safetensors file, "
             "in the compiled model (one file, no weights to bind)"),
    cl::value_desc("weights.safetensors"), cl::cat(nnCategory));

/// Prints `module` to the output file.
static int printModule(ModuleOp module) {
  std::string error;
  auto output = openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "nn-compile: " << error << "\n";
    return 1;
  }
  module.print(output->os());
  output->keep();
  return 0;
}

/// Writes the C header of the model (--emit=header), named after the
/// output file ("mlp.h" declares mlp_inputs, mlp_outputs, mlp_run).
static int writeHeader(ModuleOp module) {
  FailureOr<::nn::ArtifactDescription> description =
      mlir::nn::describeArtifact(module);
  if (failed(description))
    return 1;
  StringRef name = outputFilename == "-"
                       ? StringRef("model")
                       : llvm::sys::path::stem(outputFilename);
  llvm::Expected<std::string> header =
      mlir::nn::writeCHeader(*description, name, inputFilename);
  if (!header) {
    llvm::errs() << "nn-compile: " << llvm::toString(header.takeError())
                 << "\n";
    return 1;
  }
  std::string error;
  auto output = openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "nn-compile: " << error << "\n";
    return 1;
  }
  output->os() << *header;
  output->keep();
  return 0;
}

/// The compile stage --emit prints, if it prints one.
static std::optional<mlir::nn::CompileStage> printedStage() {
  switch (emit) {
  case Emit::NN:
    return mlir::nn::CompileStage::NN;
  case Emit::Kernels:
    return mlir::nn::CompileStage::Kernels;
  case Emit::Linalg:
    return mlir::nn::CompileStage::Linalg;
  case Emit::LLVMMLIR:
    return mlir::nn::CompileStage::LLVMDialect;
  default:
    return std::nullopt;
  }
}

static int run(ModuleOp module) {
  mlir::nn::PipelineOptions options;
  options.target = {targetCpu, targetFeatures};
  if (target == Target::CUDA)
    options.cuda = mlir::nn::CudaTarget{
        cudaArch.empty() ? ::nn::cuda::default_arch() : cudaArch};
  else if (!cudaArch.empty()) {
    llvm::errs() << "nn-compile: --cuda-arch needs --target=cuda\n";
    return 1;
  }
  if (noOptimize)
    options.optimize = nullptr;
  options.configure = [](PassManager &pm) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
    return success();
  };
  std::string error;
  if (failed(mlir::nn::verifyCpuTarget(options.target, error))) {
    llvm::errs() << "nn-compile: " << error << "\n";
    return 1;
  }
  std::optional<::nn::SafetensorsContents> weights;
  if (!embedWeights.empty()) {
    absl::StatusOr<::nn::SafetensorsContents> loaded =
        ::nn::load_safetensors(embedWeights);
    if (!loaded.ok()) {
      llvm::errs() << "nn-compile: " << std::string(loaded.status().message())
                   << "\n";
      return 1;
    }
    weights = *std::move(loaded);
    options.embed = &weights->tensors;
  }
  if (std::optional<mlir::nn::CompileStage> stage = printedStage())
    return failed(mlir::nn::runCompilePipeline(module, options, *stage))
               ? 1
               : printModule(module);
  if (emit == Emit::Cuda) {
    FailureOr<mlir::nn::cuda::CudaProgram> program =
        mlir::nn::cuda::emitCudaKernels(module, options);
    if (failed(program))
      return 1;
    auto output = openOutputFile(outputFilename, &error);
    if (!output) {
      llvm::errs() << "nn-compile: " << error << "\n";
      return 1;
    }
    output->os() << program->source;
    output->keep();
    return 0;
  }
  if (emit == Emit::Header) {
    if (failed(mlir::nn::runCompilePipeline(module, options,
                                            mlir::nn::CompileStage::NN)))
      return 1;
    return writeHeader(module);
  }
  if (emit == Emit::Shared) {
    if (outputFilename == "-") {
      llvm::errs() << "nn-compile: --emit=so needs an output path (-o)\n";
      return 1;
    }
    // Before any work: what the shared object is linked with.
    if (llvm::Expected<const mlir::nn::Toolchain &> toolchain =
            mlir::nn::locateToolchain();
        !toolchain) {
      llvm::errs() << "nn-compile: " << llvm::toString(toolchain.takeError())
                   << "\n";
      return 1;
    }
    std::optional<std::string> folder;
    if (!noCache)
      folder = cacheDir.empty()
                   ? mlir::nn::CompileCache::directoryFromEnvironment()
                   : std::optional<std::string>(cacheDir);
    std::optional<mlir::nn::CompileCache> cache;
    if (folder)
      cache.emplace(*folder);
    mlir::nn::CacheReport report;
    if (failed(mlir::nn::compileToSharedObject(module, outputFilename, options,
                                               cache ? &*cache : nullptr,
                                               &report)))
      return 1;
    if (cacheLog)
      llvm::errs() << "nn-compile: cache "
                   << mlir::nn::cacheOutcomeName(report.outcome)
                   << (report.key.empty() ? "" : " ") << report.key << "\n";
    return 0;
  }

  llvm::LLVMContext llvmContext;
  auto llvmModule = mlir::nn::compileToLLVMIR(module, llvmContext, options);
  if (failed(llvmModule))
    return 1;
  if (emit == Emit::LLVMIR) {
    auto output = openOutputFile(outputFilename, &error);
    if (!output) {
      llvm::errs() << "nn-compile: " << error << "\n";
      return 1;
    }
    (*llvmModule)->print(output->os(), nullptr);
    output->keep();
    return 0;
  }
  if (failed(mlir::nn::emitObjectFile(**llvmModule, outputFilename, error,
                                      options.target))) {
    llvm::errs() << "nn-compile: " << error << "\n";
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --mlir-print-ir-before=<pass> and its kin name passes of the registry,
  // which must be complete before those options are made.
  registerAllPasses();
  mlir::nn::registerTransformsPasses();
  mlir::nn::registerConversionPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->addCategory(mlirCategory);
  cl::HideUnrelatedOptions({&nnCategory, &mlirCategory});
  cl::ParseCommandLineOptions(argc, argv, "nn ahead-of-time compiler\n");

  DialectRegistry registry;
  mlir::nn::registerCodegenDialects(registry);
  MLIRContext context(registry);
  // A compile error names the op and its location; the op's generic form
  // (the whole lowered module, for an error on it) helps only whoever
  // debugs a pass, who asks for it.
  if (!cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"]
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  std::string error;
  auto input = openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "nn-compile: " << error << "\n";
    return 1;
  }
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  if (failed(mlir::nn::checkInputLimits(sourceMgr, bufferId, "nn-compile")))
    return 1;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  return run(*module);
}
