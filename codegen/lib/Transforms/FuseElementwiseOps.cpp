//===- FuseElementwiseOps.cpp - Elementwise fusion without broadcasts -----===//
//
// Implements nn-fuse-elementwise-ops: linalg's elementwise fusion, reshape
// folding and constant folding patterns, as linalg-fuse-elementwise-ops
// applies them, except that a producer is not inlined into a consumer that
// broadcasts it (its body would run once per consumer element). See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "nn/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-fuse-elementwise-ops"

namespace mlir::nn {
#define GEN_PASS_DEF_FUSEELEMENTWISEOPSPASS
#include "nn/Conversion/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;

namespace {

/// Whether `consumer` reads `operand` through a map that leaves out a loop
/// with more than one iteration (or a dynamic one): every element of the
/// operand is then read by several iterations.
bool broadcasts(linalg::LinalgOp consumer, OpOperand *operand) {
  AffineMap map = consumer.getMatchingIndexingMap(operand);
  SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    if (!map.isFunctionOfDim(d) && ranges[d] != 1)
      return true;
  return false;
}

/// Whether the producer of `operand` computes anything: a body that only
/// yields one of its arguments is a copy, free to inline anywhere.
bool computes(Operation *producer) {
  auto generic = llvm::dyn_cast<linalg::GenericOp>(producer);
  return !generic || generic.getBody()->getOperations().size() > 1;
}

/// linalg-fuse-elementwise-ops' rule (the producer has no other user) plus
/// no computing producer into a broadcasting consumer.
bool shouldFuse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = llvm::dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (consumer && computes(producer) && broadcasts(consumer, fused)) {
    LLVM_DEBUG(llvm::dbgs()
               << "not inlined into a broadcast: " << *producer << "\n");
    return false;
  }
  return true;
}

struct FuseElementwiseOpsPass
    : public mlir::nn::impl::FuseElementwiseOpsPassBase<
          FuseElementwiseOpsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    // Reshapes and constants as upstream: single-use producers.
    linalg::ControlFusionFn singleUse = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    };
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, singleUse);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, singleUse);
    // Top-down, as upstream, for compile time. Not converging within the
    // driver's iteration limit leaves correct, less fused IR behind.
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                       config);
  }
};

} // namespace
