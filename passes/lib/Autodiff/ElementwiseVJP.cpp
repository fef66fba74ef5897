//===- ElementwiseVJP.cpp - Gradients of the elementwise ops --------------===//
//
// Broadcasting binary ops sum each operand's gradient back to its shape;
// the formulas are PyTorch's (tools/autograd/derivatives.yaml), ties and
// zeros included: maximum/minimum split a tie evenly, abs has gradient 0 at
// 0, pow's exponent gets 0 where the base is 0.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::nn;

using P = ComparisonPredicate;

/// maximum (`max` true) or minimum: the whole gradient to the operand that
/// wins, half to each on a tie.
template <typename Op>
static LogicalResult extremumVJP(GradBuilder &g, Op op, Value dy,
                                 MutableArrayRef<Value> dx, bool max) {
  Value a = op.getLhs(), b = op.getRhs();
  Value tie = g.compare(P::eq, a, b);
  Value shared = g.where(tie, g.scale(dy, 0.5), dy);
  Value aLoses = g.compare(max ? P::lt : P::gt, a, b);
  Value bLoses = g.compare(max ? P::gt : P::lt, a, b);
  dx[0] =
      g.unbroadcast(g.where(aLoses, g.scalar(dy, 0.0), shared), a.getType());
  dx[1] =
      g.unbroadcast(g.where(bLoses, g.scalar(dy, 0.0), shared), b.getType());
  return success();
}

void mlir::nn::populateElementwiseVJPRules(VJPRules &rules) {
  rules.add<AddOp>(
      [](GradBuilder &g, AddOp op, Value dy, MutableArrayRef<Value> dx) {
        dx[0] = g.unbroadcast(dy, op.getLhs().getType());
        dx[1] = g.unbroadcast(dy, op.getRhs().getType());
        return success();
      });
  rules.add<SubOp>(
      [](GradBuilder &g, SubOp op, Value dy, MutableArrayRef<Value> dx) {
        dx[0] = g.unbroadcast(dy, op.getLhs().getType());
        dx[1] = g.unbroadcast(g.neg(dy), op.getRhs().getType());
        return success();
      });
  rules.add<MulOp>(
      [](GradBuilder &g, MulOp op, Value dy, MutableArrayRef<Value> dx) {
        dx[0] = g.unbroadcast(g.mul(dy, op.getRhs()), op.getLhs().getType());
        dx[1] = g.unbroadcast(g.mul(dy, op.getLhs()), op.getRhs().getType());
        return success();
      });
  // d(a/b) = da / b - db · (a/b) / b
  rules.add<DivOp>([](GradBuilder &g, DivOp op, Value dy,
                      MutableArrayRef<Value> dx) {
    Value a = op.getLhs(), b = op.getRhs();
    dx[0] = g.unbroadcast(g.div(dy, b), a.getType());
    dx[1] =
        g.unbroadcast(g.neg(g.div(g.mul(dy, op.getResult()), b)), b.getType());
    return success();
  });
  // d(a^b) = b·a^(b-1) da + a^b·log(a) db, the second 0 where a is 0.
  rules.add<PowOp>([](GradBuilder &g, PowOp op, Value dy,
                      MutableArrayRef<Value> dx) {
    Value a = op.getLhs(), b = op.getRhs(), y = op.getResult();
    Value bMinus1 = g.sub(b, g.scalar(b, 1.0));
    dx[0] = g.unbroadcast(g.mul(dy, g.mul(b, g.pow(a, bMinus1))), a.getType());
    Value atZero = g.compare(P::eq, a, g.scalar(a, 0.0));
    Value db =
        g.where(atZero, g.scalar(dy, 0.0), g.mul(dy, g.mul(y, g.log(a))));
    dx[1] = g.unbroadcast(db, b.getType());
    return success();
  });
  rules.add<MaximumOp>(
      [](GradBuilder &g, MaximumOp op, Value dy, MutableArrayRef<Value> dx) {
        return extremumVJP(g, op, dy, dx, /*max=*/true);
      });
  rules.add<MinimumOp>(
      [](GradBuilder &g, MinimumOp op, Value dy, MutableArrayRef<Value> dx) {
        return extremumVJP(g, op, dy, dx, /*max=*/false);
      });
  rules.add<NegOp>(
      [](GradBuilder &g, NegOp, Value dy, MutableArrayRef<Value> dx) {
        dx[0] = g.neg(dy);
        return success();
      });
  // sgn(x) · dy, 0 at 0.
  rules.add<AbsOp>(
      [](GradBuilder &g, AbsOp op, Value dy, MutableArrayRef<Value> dx) {
        Value x = op.getInput(), zero = g.scalar(x, 0.0);
        dx[0] = g.where(
            g.compare(P::gt, x, zero), dy,
            g.where(g.compare(P::lt, x, zero), g.neg(dy), g.scalar(dy, 0.0)));
        return success();
      });
  rules.add<ExpOp>(
      [](GradBuilder &g, ExpOp op, Value dy, MutableArrayRef<Value> dx) {
        dx[0] = g.mul(dy, op.getResult());
        return success();
      });
  rules.add<LogOp>(
      [](GradBuilder &g, LogOp op, Value dy, MutableArrayRef<Value> dx) {
        dx[0] = g.div(dy, op.getInput());
        return success();
      });
  rules.add<SqrtOp>(
      [](GradBuilder &g, SqrtOp op, Value dy, MutableArrayRef<Value> dx) {
        dx[0] = g.div(dy, g.scale(op.getResult(), 2.0));
        return success();
      });
  // d(x^-1/2) = -1/2 · y³
  rules.add<RsqrtOp>(
      [](GradBuilder &g, RsqrtOp op, Value dy, MutableArrayRef<Value> dx) {
        Value y = op.getResult();
        dx[0] = g.mul(dy, g.scale(g.mul(y, g.mul(y, y)), -0.5));
        return success();
      });
  // The condition has no gradient; each branch gets dy where it was taken.
  rules.add<WhereOp>(
      [](GradBuilder &g, WhereOp op, Value dy, MutableArrayRef<Value> dx) {
        Value c = op.getCondition(), zero = g.scalar(dy, 0.0);
        dx[1] = g.unbroadcast(g.where(c, dy, zero), op.getLhs().getType());
        dx[2] = g.unbroadcast(g.where(c, zero, dy), op.getRhs().getType());
        return success();
      });
  // The same mask again: the op draws from its generator state and offset
  // alone, so a copy applied to dy zeroes and scales the same elements.
  rules.add<DropoutOp>(
      [](GradBuilder &g, DropoutOp op, Value dy, MutableArrayRef<Value> dx) {
        if (!op.isActive()) {
          dx[0] = dy;
          return success();
        }
        IRMapping mapping;
        mapping.map(op.getInput(), dy);
        dx[0] = g.builder().clone(*op, mapping)->getResult(0);
        return success();
      });
}
