//===- Pipelines.cpp - nn → LLVM dialect pipeline -------------------------===//
//
// The CPU compile pipeline, built in stages (CompileStage), and the
// registration of the conversion passes.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/CPU/Compiler.h"
#include "nn/Conversion/CPU/EmbedState.h"
#include "nn/Conversion/CUDA/EmitCuda.h"
#include "nn/Conversion/Passes.h"
#include "nn/Conversion/ScalarBodyInterface.h"
#include "nn/Kernel/KernelDialect.h"

#include "nn/IR/NNDialect.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/ErrorHandling.h"

#include <mutex>

namespace mlir::nn {
namespace {
#define GEN_PASS_REGISTRATION
#include "nn/Conversion/Passes.h.inc"
} // namespace
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

/// The upstream parts of the pipeline, after nn has become linalg on
/// tensors, around nn's own tiling and outlining passes (added by object:
/// textual pipelines only resolve registered passes).
/// The function boundary keeps identity layouts so every memref is a plain
/// contiguous buffer, and results become out-parameters the caller provides.
static constexpr const char *kBufferize =
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}";
static constexpr const char *kAfterBufferize =
    "buffer-results-to-out-params{hoist-static-allocs},"
    "buffer-deallocation-pipeline";
static constexpr const char *kToLLVM =
    // What was not vectorized becomes scalar loops; vector transfers that
    // LLVM cannot load directly (strided, transposed) become scalar ones.
    "func.func(convert-linalg-to-loops),"
    "func.func(convert-vector-to-scf{full-unroll}),"
    // Subviews at loop-dependent offsets become affine.apply here.
    "expand-strided-metadata,"
    "lower-affine,"
    "convert-scf-to-cf,"
    // bf16 has no arithmetic on x86 without AVX512-BF16: what is left of it
    // (contractions and pointwise ops on f16/bf16 already compute in f32)
    // runs in f32 between an extf and a truncf, and the bf16 conversions
    // become integer arithmetic (see the pass for why).
    "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
    "nn-legalize-math-to-f32,"
    "nn-expand-bf16-conversions,"
    "convert-math-to-llvm,"
    // What LLVM has no intrinsic for (erf, tanh) becomes a libm call, per
    // lane of a vector (vector.extract/insert, lowered next).
    "convert-math-to-libm,"
    "convert-vector-to-llvm,"
    "finalize-memref-to-llvm,"
    "convert-arith-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv},"
    "reconcile-unrealized-casts";

void mlir::nn::addBuiltinPipeline(OpPassManager &pm, StringRef pipeline) {
  // Textual pipelines resolve pass names through the registry (kToLLVM
  // names nn-expand-bf16-conversions).
  static std::once_flag registered;
  std::call_once(registered, [] {
    registerAllPasses();
    registerNNConversionPasses();
  });
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error(llvm::Twine("nn: the built-in pipeline '") +
                             pipeline + "' does not parse");
}

/// The lowering that follows nn-optimize (and nn-describe-artifact), from the
/// start of the kernels stage through `last`.
static void addLowering(OpPassManager &pm, CompileStage last) {
  auto parse = [&](const char *pipeline) { addBuiltinPipeline(pm, pipeline); };
  // What depends on the state alone moves into @prepare (run at bind).
  pm.addPass(createHoistStateComputationsPass());
  pm.addPass(createLowerStateToArgumentsPass());
  pm.addPass(createConvertNNToKernelPass());
  if (last == CompileStage::Kernels)
    return;
  pm.addNestedPass<func::FuncOp>(createConvertNNToLinalgPass());
  if (last == CompileStage::Linalg)
    return;
  // Elementwise chains become one linalg.generic, but what a consumer
  // broadcasts (per-row statistics) stays computed once per row.
  parse("canonicalize");
  pm.addNestedPass<func::FuncOp>(createFuseElementwiseOpsPass());
  // scf.forall over the outer parallel loop, vectors in the inner tile.
  pm.addNestedPass<func::FuncOp>(createTileAndVectorizePass());
  // Inputs stay read-only, and no result is an input's buffer.
  pm.addNestedPass<func::FuncOp>(createIsolateArgumentsPass());
  parse(kBufferize);
  // The kernel ops, now on memrefs, become calls.
  pm.addPass(createLowerKernelOpsPass());
  parse(kAfterBufferize);
  // Statically sized intermediates share one per-call arena (before
  // outlining, so a parallel loop's buffers are planned with the function).
  pm.addPass(createPlanBuffersPass());
  // Outputs larger than the last-level cache are streamed to memory
  // instead of being read into it first (before outlining: the fences go
  // at the end of each thread's tile).
  pm.addNestedPass<func::FuncOp>(createUseNontemporalStoresPass());
  // Each scf.forall becomes an nn_rt_parallel_for call.
  pm.addPass(createOutlineParallelLoopsPass());
  // Zero-size arguments get a type the bare-pointer convention takes.
  pm.addPass(createFlattenEmptyArgumentsPass());
  parse(kToLLVM);
}

void mlir::nn::cuda::buildCudaKernelPipeline(OpPassManager &pm) {
  pm.addPass(createLowerStateToArgumentsPass());
  pm.addNestedPass<func::FuncOp>(createConvertNNToLinalgPass());
  addBuiltinPipeline(pm, "canonicalize");
  pm.addNestedPass<func::FuncOp>(createFuseElementwiseOpsPass());
  pm.addNestedPass<func::FuncOp>(createIsolateArgumentsPass());
  addBuiltinPipeline(pm, kBufferize);
  addBuiltinPipeline(pm, kAfterBufferize);
  addBuiltinPipeline(pm, "canonicalize");
}

void mlir::nn::buildLowerToLLVMPipeline(OpPassManager &pm) {
  addLowering(pm, CompileStage::LLVMDialect);
}

void mlir::nn::buildCompilePipeline(OpPassManager &pm,
                                    const PipelineOptions &options,
                                    CompileStage last) {
  if (options.optimize)
    buildOptimizePipeline(pm, *options.optimize);
  // After tying, which gives a tied parameter the aliases it is found by.
  if (options.embed)
    pm.addPass(createEmbedStatePass(*options.embed));
  if (last == CompileStage::NN)
    return;
  // The names of the state, inputs and outputs are read before lowering
  // turns them into arguments.
  pm.addPass(createDescribeArtifactPass());
  addLowering(pm, last);
}

void mlir::nn::registerCodegenDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registry.insert<NNDialect, kernel::KernelDialect>();
  registerScalarBodies(registry);
  kernel::registerBufferizableOpInterfaceExternalModels(registry);
}

void mlir::nn::registerConversionPasses() {
  registerNNConversionPasses();
  PassPipelineRegistration<>(
      "nn-lower-to-llvm",
      "Lower an optimized nn module to the LLVM dialect for the host CPU",
      buildLowerToLLVMPipeline);
  PassPipelineRegistration<>(
      "nn-lower-to-cuda-kernels",
      "Lower an optimized nn module to the bufferized linalg the CUDA kernel "
      "emitter takes (nn-translate --nn-to-cuda)",
      cuda::buildCudaKernelPipeline);
}
