//===- Passes.h - nn → nn graph passes --------------------------*- C++ -*-===//
//
// Declarations of the nn graph passes (generated from Passes.td) and of the
// named pipelines built from them.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TRANSFORMS_PASSES_H
#define NN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"
#include "nn/IR/NNOps.h"

namespace mlir::nn {

#define GEN_PASS_DECL
#include "nn/Transforms/Passes.h.inc"

/// Options of the `nn-optimize` pipeline; each stage can be switched off.
struct OptimizePipelineOptions
    : public PassPipelineOptions<OptimizePipelineOptions> {
  Option<bool> tieWeights{*this, "tie-weights",
                          llvm::cl::desc("Run nn-tie-weights"),
                          llvm::cl::init(true)};
  Option<bool> foldBatchNorm{*this, "fold-batchnorm",
                             llvm::cl::desc("Run nn-fold-batchnorm"),
                             llvm::cl::init(true)};
  Option<bool> foldScalarMul{*this, "fold-scalar-mul",
                             llvm::cl::desc("Run nn-fold-scalar-mul"),
                             llvm::cl::init(true)};
  Option<bool> mergeLinears{*this, "merge-linears",
                            llvm::cl::desc("Run nn-merge-linears"),
                            llvm::cl::init(true)};
  Option<bool> decomposeConv3d{*this, "decompose-conv3d",
                               llvm::cl::desc("Run nn-decompose-conv3d"),
                               llvm::cl::init(true)};
  Option<bool> fuse{*this, "fuse", llvm::cl::desc("Run nn-fuse"),
                    llvm::cl::init(true)};
};

/// The default graph optimization pipeline: canonicalize and CSE,
/// nn-tie-weights, nn-fold-batchnorm, nn-fold-scalar-mul, nn-merge-linears,
/// nn-decompose-conv3d, nn-fuse, canonicalize. Used by
/// nn-compile, the frontend and lit.
void buildOptimizePipeline(OpPassManager &pm,
                           const OptimizePipelineOptions &options);

/// Registers every nn pass and the `nn-optimize` pipeline with the global
/// registry (for nn-opt and textual pipelines).
void registerTransformsPasses();

} // namespace mlir::nn

#endif // NN_TRANSFORMS_PASSES_H
