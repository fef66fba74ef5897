//===- AttentionVJP.cpp - The gradient of scaled dot-product attention ----===//
//
// The fused attention keeps no probabilities (it never materializes the
// L×S matrix), so backward recomputes them from the saved q, k and v
// (FlashAttention's choice: recompute, don't store), then
//
//   p = softmax(q·kᵀ·scale + mask),  o = p·v
//   dv = pᵀ·do,  dp = do·vᵀ,  ds = p ∘ (dp - rowsum(dp ∘ p))
//   dq = ds·k·scale,  dk = dsᵀ·q·scale,  dmask = ds (a float mask)
//
// A boolean mask (true: attend) and is_causal become -inf where masked.
// Attention dropout draws the same mask again from the op's generator
// state and offset (the lowering drops out the probabilities with the
// dropout op's own generator).
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;

/// `x` with its last two dims swapped.
static Value transposed(GradBuilder &g, Value x) {
  int64_t rank = shapeOf(x).size();
  return g.transpose(x, rank - 2, rank - 1);
}

void mlir::nn::populateAttentionVJPRules(VJPRules &rules) {
  rules.add<ScaledDotProductAttentionOp>(
      [](GradBuilder &g, ScaledDotProductAttentionOp op, Value dout,
         MutableArrayRef<Value> dx) -> LogicalResult {
        Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
        ArrayRef<int64_t> qShape = shapeOf(q), kShape = shapeOf(k);
        int64_t L = qShape[qShape.size() - 2], S = kShape[kShape.size() - 2];
        double scale = op.getScale() ? op.getScale()->convertToDouble()
                                     : 1.0 / std::sqrt(double(qShape.back()));
        Value scores = g.scale(g.matmul(q, transposed(g, k)), scale);
        Value minusInf = g.scalar(scores, -INFINITY);
        if (Value mask = op.getAttnMask()) {
          auto element =
              llvm::cast<RankedTensorType>(mask.getType()).getElementType();
          scores = element.isInteger(1) ? g.where(mask, scores, minusInf)
                                        : g.add(scores, mask);
        }
        if (op.getIsCausal()) {
          // PyTorch's ones(L, S).tril(): position (i, j) attends when j <= i.
          SmallVector<bool> lower(L * S);
          for (int64_t i = 0; i < L; ++i)
            for (int64_t j = 0; j < S; ++j)
              lower[i * S + j] = j <= i;
          OpBuilder &b = g.builder();
          auto type = RankedTensorType::get({L, S}, b.getI1Type());
          Value causal = b.create<arith::ConstantOp>(
              g.location(), DenseElementsAttr::get(type, ArrayRef(lower)));
          scores = g.where(causal, scores, minusInf);
        }
        int64_t last = shapeOf(scores).size() - 1;
        Value p =
            g.builder().create<SoftmaxOp>(g.location(), scores, uint64_t(last));
        // Attention dropout applies the op's own mask (its generator state
        // and offset) to the probabilities: the same mask again, on the
        // probabilities for dv and on their gradient.
        auto dropped = [&](Value t) -> Value {
          double rate = op.getDropoutP().convertToDouble();
          if (rate <= 0)
            return t;
          OpBuilder &b = g.builder();
          return b
              .create<DropoutOp>(g.location(), t.getType(), t, op.getRng(),
                                 b.getF64FloatAttr(rate), b.getUnitAttr(),
                                 b.getI64IntegerAttr(op.getOffset()))
              .getResult();
        };
        Value dp = dropped(g.matmul(dout, transposed(g, v)));
        Value ds = g.mul(p, g.sub(dp, g.sum(g.mul(dp, p), {last}, true)));
        dx[0] = g.unbroadcast(g.scale(g.matmul(ds, k), scale), q.getType());
        dx[1] = g.unbroadcast(g.scale(g.matmul(transposed(g, ds), q), scale),
                              k.getType());
        dx[2] = g.unbroadcast(g.matmul(transposed(g, dropped(p)), dout),
                              v.getType());
        if (Value mask = op.getAttnMask())
          if (llvm::isa<FloatType>(llvm::cast<RankedTensorType>(mask.getType())
                                       .getElementType()))
            dx[3] = g.unbroadcast(ds, mask.getType());
        return success();
      });
}
