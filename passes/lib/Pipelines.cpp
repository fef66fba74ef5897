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
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(createFusePass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::nn::registerTransformsPasses() {
  registerNNPasses();
  PassPipelineRegistration<OptimizePipelineOptions>(
      "nn-optimize",
      "The default nn graph pipeline: clean-up, fusion, clean-up",
      buildOptimizePipeline);
}
