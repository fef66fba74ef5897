//===- Pipelines.cpp - Named nn pipelines ---------------------------------===//
//
// The `nn-optimize` pipeline and the registration of every nn pass.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::nn {
namespace {
#define GEN_PASS_REGISTRATION
#include "nn/Transforms/Passes.h.inc"
} // namespace
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

void mlir::nn::buildOptimizePipeline(OpPassManager &pm,
                                     const OptimizePipelineOptions &options) {
  // Clean-up first: folds identity ops (eval dropout, no-op reshapes) and
  // drops dead loads, so the patterns below see producer → consumer directly.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Tying before folding: after it, both uses of a tied weight read one
  // symbol, and CSE merges their loads.
  if (options.tieWeights) {
    pm.addPass(createTieWeightsPass());
    pm.addPass(createCSEPass());
  }
  // Folding before fusion: the conv that absorbed a batch norm is then
  // fused with the activation that followed the batch norm.
  if (options.foldBatchNorm)
    pm.addNestedPass<func::FuncOp>(createFoldBatchNormPass());
  // Algebra next, while each linear still has its own result: scale folding
  // needs a linear whose only user is the multiply, and merging turns the
  // results into slices. Both before fusion, which would hide the linears
  // inside groups.
  if (options.foldScalarMul)
    pm.addNestedPass<func::FuncOp>(createFoldScalarMulPass());
  if (options.mergeLinears)
    pm.addNestedPass<func::FuncOp>(createMergeLinearsPass());
  // 3-D convolutions become 2-D ones (the CPU kernels are 2-D) after the
  // batch norm after them was folded, and before fusion, which folds their
  // sum into the kernels' epilogues.
  if (options.decomposeConv3d)
    pm.addNestedPass<func::FuncOp>(createDecomposeConv3dPass());
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(createFusePass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::nn::registerTransformsPasses() {
  registerNNPasses();
  PassPipelineRegistration<OptimizePipelineOptions>(
      "nn-optimize",
      "The default nn graph pipeline: clean-up, tie-weights, "
      "fold-batchnorm, fold-scalar-mul, merge-linears, decompose-conv3d, "
      "fuse, clean-up",
      buildOptimizePipeline);
}
