//===- Fuse.cpp - Fuse activations into their producers -------------------===//
//
// Implements nn-fuse: an activation applied to the only use of a producer that
// can apply it on store is folded into that producer's `activation`
// attribute. See Passes.td for the rule.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-fuse"

namespace mlir::nn {
#define GEN_PASS_DEF_FUSEPASS
#include "nn/Transforms/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// relu(linear(x)) → linear(x) activation<relu>.
struct FuseLinearRelu : public OpRewritePattern<ReluOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReluOp relu,
                                PatternRewriter &rewriter) const override {
    auto linear = relu.getInput().getDefiningOp<LinearOp>();
    if (!linear)
      return rewriter.notifyMatchFailure(relu, "input is not an nn.linear");
    if (linear.getActivation() != Activation::none)
      return rewriter.notifyMatchFailure(
          relu, "the linear already applies an activation");
    if (!linear->hasOneUse())
      return rewriter.notifyMatchFailure(
          relu, "the linear's result has users besides the relu");
    LLVM_DEBUG(llvm::dbgs() << "fusing " << relu << " into " << linear << "\n");
    rewriter.modifyOpInPlace(linear, [&] {
      linear.setActivation(Activation::relu);
      linear->setLoc(rewriter.getFusedLoc({linear.getLoc(), relu.getLoc()}));
    });
    rewriter.replaceOp(relu, linear.getResult());
    return success();
  }
};

struct FusePass : public nn::impl::FusePassBase<FusePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseLinearRelu>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
