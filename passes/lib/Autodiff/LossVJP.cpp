//===- LossVJP.cpp - Gradients of the loss ops ----------------------------===//
//
// PyTorch's loss gradients: mean divides by the element count (mse, l1) or
// by the total weight of the targets not ignored (nll_loss); nll_loss's
// gradient reaches the input at the target class only, which is written as
// a comparison of the targets with the class indices (no scatter op).
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::nn;

using P = ComparisonPredicate;

static RankedTensorType typeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType());
}

/// `dy` (the loss's gradient, scalar for mean and sum, elementwise for
/// none) times `d` (the loss's elementwise derivative), with mean's 1/N.
template <typename Op>
static Value reduceGrad(GradBuilder &g, Op op, Value dy, Value d) {
  if (op.getReduction() == LossReduction::mean)
    d = g.scale(d, 1.0 / double(typeOf(d).getNumElements()));
  return g.mul(d, dy);
}

/// Both operands' gradients of a pointwise loss whose elementwise
/// derivative with respect to the input is `d` (the target's is -d).
template <typename Op>
static LogicalResult pointwiseLossVJP(GradBuilder &g, Op op, Value dy, Value d,
                                      MutableArrayRef<Value> dx) {
  Value grad = reduceGrad(g, op, dy, d);
  dx[0] = g.unbroadcast(grad, op.getInput().getType());
  dx[1] = g.unbroadcast(g.neg(grad), op.getTarget().getType());
  return success();
}

void mlir::nn::populateLossVJPRules(VJPRules &rules) {
  // 2 · (x - t)
  rules.add<MseLossOp>(
      [](GradBuilder &g, MseLossOp op, Value dy, MutableArrayRef<Value> dx) {
        Value diff = g.sub(op.getInput(), op.getTarget());
        return pointwiseLossVJP(g, op, dy, g.scale(diff, 2.0), dx);
      });
  // sgn(x - t), 0 where equal
  rules.add<L1LossOp>(
      [](GradBuilder &g, L1LossOp op, Value dy, MutableArrayRef<Value> dx) {
        Value diff = g.sub(op.getInput(), op.getTarget());
        Value zero = g.scalar(diff, 0.0);
        Value sign = g.where(
            g.compare(P::gt, diff, zero), g.scalar(diff, 1.0),
            g.where(g.compare(P::lt, diff, zero), g.scalar(diff, -1.0), zero));
        return pointwiseLossVJP(g, op, dy, sign, dx);
      });
  // input [N, C, d...] (or [C]), target [N, d...]: element (i, c, ...) gets
  // -weight[c] where c is its target (and the target is not ignored), times
  // dy; mean divides by the total weight of the targets not ignored.
  rules.add<NllLossOp>(
      [](GradBuilder &g, NllLossOp op, Value dy, MutableArrayRef<Value> dx) {
        Value x = op.getInput(), target = op.getTarget();
        ArrayRef<int64_t> shape = typeOf(x).getShape();
        int64_t classDim = shape.size() == 1 ? 0 : 1, classes = shape[classDim];
        // The class index of each position along the class dim, and the
        // target broadcast along it: [1, C, 1, ...] against [N, 1, d...].
        SmallVector<int64_t> classShape(shape.size(), 1), targetShape(shape);
        classShape[classDim] = classes;
        targetShape[classDim] = 1;
        SmallVector<int64_t> indices(classes);
        for (int64_t c = 0; c < classes; ++c)
          indices[c] = c;
        OpBuilder &b = g.builder();
        auto indexType = RankedTensorType::get(classShape, b.getI64Type());
        Value classIndex = b.create<arith::ConstantOp>(
            g.location(), DenseElementsAttr::get(indexType, ArrayRef(indices)));
        Value t = g.reshape(target, targetShape);
        Value picked = g.compare(P::eq, t, classIndex);
        Value ignored = g.scalar(t, double(op.getIgnoreIndexAttr().getInt()));
        Value taken = g.compare(P::ne, t, ignored);
        Value weight = g.scalar(x, 1.0);
        if (Value w = op.getWeight())
          weight = g.reshape(w, classShape);
        Value weighted = g.mask(taken, g.mask(picked, weight));
        Value grad = g.neg(weighted);
        switch (op.getReduction()) {
        case LossReduction::none:
          grad = g.mul(grad, g.reshape(dy, targetShape));
          break;
        case LossReduction::sum:
          grad = g.mul(grad, dy);
          break;
        case LossReduction::mean:
          grad = g.mul(grad, g.div(dy, g.sum(weighted, {}, /*keepdim=*/false)));
          break;
        }
        dx[0] = grad;
        return success();
      });
}
