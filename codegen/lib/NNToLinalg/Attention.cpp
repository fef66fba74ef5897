//===- Attention.cpp - nn.scaled_dot_product_attention to linalg ----------===//
//
// Lowering of the ops in NNAttentionOps.td. Attention decomposes into
//   scores = query · keyᵀ                    (buildBatchMatmul, transposed key)
//   biased = scores · scale + mask           (one broadcasting generic: a float
//            mask is added, an i1 mask or the causal triangle selects -inf)
//   probs  = softmax(biased, dim = -1)       (buildSoftmax: max-subtracted)
//   probs  = dropout(probs, dropout_p)       (buildDropout, when dropout_p > 0)
//   result = probs · value                   (buildBatchMatmul)
// so every step is a linalg named op or generic that later tiling, fusion and
// vectorization handle like any other.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;

namespace {

struct ScaledDotProductAttentionLowering
    : public OpRewritePattern<ScaledDotProductAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScaledDotProductAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::cast<RankedTensorType>(op.getType());
    auto keyType = llvm::cast<RankedTensorType>(op.getKey().getType());
    Type elementType = resultType.getElementType();
    if (!llvm::isa<FloatType>(elementType))
      return rewriter.notifyMatchFailure(op, "attention needs float operands");
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> scoresShape(resultType.getShape());
    scoresShape.back() = keyType.getDimSize(keyType.getRank() - 2);
    auto scoresType = RankedTensorType::get(scoresShape, elementType);

    Value scores = buildBatchMatmul(rewriter, loc, op.getQuery(), op.getKey(),
                                    scoresType, /*transposeRhs=*/true);

    // scale, then the mask: added (float), or -inf where it says no (i1, or
    // the causal triangle: key position > query position).
    double scale = op.getScaleOrDefault();
    Value mask = op.getAttnMask();
    bool causal = op.getIsCausal();
    bool boolMask = mask && llvm::cast<RankedTensorType>(mask.getType())
                                .getElementType()
                                .isInteger(1);
    SmallVector<Value> inputs = {scores};
    if (mask)
      inputs.push_back(mask);
    Value biased = buildBroadcastingElementwise(
        rewriter, loc, scoresType, inputs,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value v = args[0];
          if (scale != 1.0)
            v = b.create<arith::MulFOp>(l, v,
                                        buildScalar(b, l, elementType, scale));
          Value keep;
          if (mask && !boolMask)
            return b.create<arith::AddFOp>(l, v, args[1]);
          if (boolMask)
            keep = args[1];
          if (causal) {
            Value row = b.create<linalg::IndexOp>(l, rank - 2);
            Value col = b.create<linalg::IndexOp>(l, rank - 1);
            keep =
                b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ule, col, row);
          }
          if (!keep)
            return v;
          return b.create<arith::SelectOp>(
              l, keep, v, buildScalar(b, l, elementType, -INFINITY));
        });

    Value probs = buildSoftmax(rewriter, loc, biased, rank - 1);
    if (op.hasDropout()) {
      if (!op.getRng())
        return rewriter.notifyMatchFailure(op, "attention dropout has no rng");
      probs = buildDropout(rewriter, loc, probs, op.getRng(),
                           static_cast<int64_t>(op.getOffset()),
                           op.getDropoutP().convertToDouble());
    }
    rewriter.replaceOp(
        op, buildBatchMatmul(rewriter, loc, probs, op.getValue(), resultType));
    return success();
  }
};

} // namespace

void mlir::nn::populateAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<ScaledDotProductAttentionLowering>(patterns.getContext());
}
