//===- FoldBatchNorm.cpp - Fold eval batch norm into conv / linear --------===//
//
// Implements nn-fold-batchnorm: nn.batch_norm (the evaluation form, with
// given statistics) applied to the only use of an nn.conv or a 2-D nn.linear
// becomes that conv/linear with a rescaled weight and a shifted bias. The new
// weight and bias are computed in the graph from the parameters (a small
// prologue of pointwise ops and one reshape); see Passes.td for why this is
// exact and how it becomes a compile-time constant.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "nn-fold-batchnorm"

namespace mlir::nn {
#define GEN_PASS_DEF_FOLDBATCHNORMPASS
#include "nn/Transforms/Passes.h.inc"
} // namespace mlir::nn

using namespace mlir;
using namespace mlir::nn;

namespace {

/// Builds the prologue ops with the location of the batch norm.
struct PrologueBuilder {
  PatternRewriter &rewriter;
  Location loc;

  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return rewriter.create<OpTy>(loc, lhs, rhs);
  }
  /// A rank-0 constant of `like`'s element type, as the tracer spells scalars.
  Value scalar(double value, Value like) {
    Type element =
        llvm::cast<RankedTensorType>(like.getType()).getElementType();
    auto type = RankedTensorType::get({}, element);
    return rewriter.create<arith::ConstantOp>(
        loc,
        DenseElementsAttr::get(type, rewriter.getFloatAttr(element, value)));
  }
};

/// batch_norm(conv(x, w, b)) → conv(x, w * s, (b - mean) * s + beta) and
/// batch_norm(linear(x, w, b)) likewise, s = gamma / sqrt(var + eps) per
/// output channel.
struct FoldBatchNormIntoProducer : public OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    Operation *producer = bn.getInput().getDefiningOp();
    if (!producer || !llvm::isa<ConvOp, LinearOp>(producer))
      return rewriter.notifyMatchFailure(bn, "input is not an nn.conv or "
                                             "nn.linear");
    if (!producer->hasOneUse())
      return rewriter.notifyMatchFailure(
          bn, "the producer's result has users besides the batch norm");
    auto linear = llvm::dyn_cast<LinearOp>(producer);
    // BatchNorm normalizes dim 1; a linear's channels are its last dim.
    if (linear && llvm::cast<RankedTensorType>(linear.getType()).getRank() != 2)
      return rewriter.notifyMatchFailure(
          bn, "the linear's output is not [N, C], so dim 1 is not its "
              "output features");

    Value weight = producer->getOperand(1);
    Value bias =
        linear ? linear.getBias() : llvm::cast<ConvOp>(producer).getBias();
    auto weightType = llvm::cast<RankedTensorType>(weight.getType());
    PrologueBuilder p{rewriter, bn.getLoc()};

    // s = gamma / sqrt(var + eps), or 1 / sqrt(var + eps) without gamma.
    Value stddev = rewriter.create<SqrtOp>(
        bn.getLoc(),
        p.binary<AddOp>(bn.getVar(),
                        p.scalar(bn.getEps().convertToDouble(), bn.getVar())));
    Value gamma = bn.getWeight() ? bn.getWeight() : p.scalar(1.0, stddev);
    Value scale = p.binary<DivOp>(gamma, stddev);

    // w' = w * s broadcast over each output channel's slice: s as [O, 1, ...].
    SmallVector<int64_t> perChannel(weightType.getRank(), 1);
    perChannel[0] = weightType.getDimSize(0);
    Value scaleColumn = rewriter.create<ReshapeOp>(
        bn.getLoc(),
        RankedTensorType::get(perChannel, weightType.getElementType()), scale,
        rewriter.getDenseI64ArrayAttr(perChannel));
    Value newWeight = p.binary<MulOp>(weight, scaleColumn);

    // b' = (b - mean) * s + beta.
    Value centered =
        bias ? p.binary<SubOp>(bias, bn.getMean())
             : Value(rewriter.create<NegOp>(bn.getLoc(), bn.getMean()));
    Value newBias = p.binary<MulOp>(centered, scale);
    if (Value beta = bn.getBias())
      newBias = p.binary<AddOp>(newBias, beta);

    LLVM_DEBUG(llvm::dbgs() << "nn-fold-batchnorm: folding " << bn << "\n");
    Location loc = rewriter.getFusedLoc({producer->getLoc(), bn.getLoc()});
    Operation *folded;
    if (linear) {
      folded = rewriter.create<LinearOp>(loc, bn.getType(), linear.getInput(),
                                         newWeight, newBias);
    } else {
      auto conv = llvm::cast<ConvOp>(producer);
      folded = rewriter.create<ConvOp>(
          loc, bn.getType(), conv.getInput(), newWeight, newBias,
          conv.getStrideAttr(), conv.getPaddingAttr(), conv.getDilationAttr(),
          conv.getGroupsAttr());
    }
    rewriter.replaceOp(bn, folded->getResults());
    rewriter.eraseOp(producer);
    return success();
  }
};

struct FoldBatchNormPass
    : public nn::impl::FoldBatchNormPassBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNormIntoProducer>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
