//===- Elementwise.cpp - nn elementwise ops to linalg.generic -------------===//
//
// Lowers the broadcasting binary ops, unary activations and dropout to one
// `linalg.generic` each. Broadcasting is expressed in the indexing maps, so
// nothing is materialized at the broadcast shape.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::nn;

Value mlir::nn::buildZeroFilled(OpBuilder &b, Location loc,
                                RankedTensorType type) {
  Value empty =
      b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType());
  Value zero = b.create<arith::ConstantOp>(
      loc, type.getElementType(), b.getZeroAttr(type.getElementType()));
  return b.create<linalg::FillOp>(loc, zero, empty).getResult(0);
}

Value mlir::nn::buildBroadcastingElementwise(OpBuilder &b, Location loc,
                                             RankedTensorType resultType,
                                             ValueRange inputs,
                                             ScalarBodyBuilder body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto type = llvm::cast<RankedTensorType>(input.getType());
    int64_t offset = rank - type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      bool broadcast = type.getDimSize(i) == 1 &&
                       resultType.getDimSize(offset + i) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(offset + i, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = b.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                         resultType.getElementType());
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, inputs, init, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        nested.create<linalg::YieldOp>(nestedLoc, result);
      });
  return generic.getResult(0);
}

Value mlir::nn::applyActivation(OpBuilder &b, Location loc,
                                Activation activation, Value value) {
  switch (activation) {
  case Activation::none:
    return value;
  case Activation::relu: {
    // arith.maximumf propagates NaN, as torch.relu does.
    Value zero = b.create<arith::ConstantOp>(
        loc, value.getType(), b.getZeroAttr(value.getType()));
    return b.create<arith::MaximumFOp>(loc, value, zero);
  }
  }
  llvm_unreachable("unknown activation");
}

namespace {

/// Binary ops whose scalar form is one arith op, float or integer.
template <typename SourceOp, typename FloatOp, typename IntOp>
struct BinaryOpLowering : public OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    bool isFloat = llvm::isa<FloatType>(resultType.getElementType());
    Value result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (isFloat)
            return b.create<FloatOp>(loc, args[0], args[1]);
          return b.create<IntOp>(loc, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

using AddOpLowering = BinaryOpLowering<AddOp, arith::AddFOp, arith::AddIOp>;

/// Activations with a fused-activation counterpart.
template <typename SourceOp, Activation kind>
struct ActivationOpLowering : public OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    Value result = buildBroadcastingElementwise(
        rewriter, op.getLoc(), resultType, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return applyActivation(b, loc, kind, args[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

using ReluOpLowering = ActivationOpLowering<ReluOp, Activation::relu>;

struct DropoutOpLowering : public OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    if (op.isActive())
      return rewriter.notifyMatchFailure(
          op, "training-mode dropout needs the random-number lowering");
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

} // namespace

void mlir::nn::populateElementwisePatterns(RewritePatternSet &patterns) {
  patterns.add<AddOpLowering, ReluOpLowering, DropoutOpLowering>(
      patterns.getContext());
}
