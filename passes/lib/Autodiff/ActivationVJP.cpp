//===- ActivationVJP.cpp - Gradients of the activations and softmax -------===//
//
// Written in terms of the op's result where PyTorch's are (relu, sigmoid,
// tanh, softmax, log_softmax), which backward reads as a saved value.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nn;

using P = ComparisonPredicate;

void mlir::nn::populateActivationVJPRules(VJPRules &rules) {
  // threshold_backward(dy, y, 0): dy where y > 0.
  rules.add<ReluOp>(
      [](GradBuilder &g, ReluOp op, Value dy, MutableArrayRef<Value> dx) {
        Value y = op.getResult();
        dx[0] = g.mask(g.compare(P::gt, y, g.scalar(y, 0.0)), dy);
        return success();
      });
  rules.add<LeakyReluOp>([](GradBuilder &g, LeakyReluOp op, Value dy,
                            MutableArrayRef<Value> dx) {
    Value x = op.getInput();
    double slope = op.getNegativeSlope().convertToDouble();
    dx[0] =
        g.where(g.compare(P::gt, x, g.scalar(x, 0.0)), dy, g.scale(dy, slope));
    return success();
  });
  // dy where min <= x <= max (both ends included, as PyTorch).
  rules.add<ClampOp>([](GradBuilder &g, ClampOp op, Value dy,
                        MutableArrayRef<Value> dx) {
    Value x = op.getInput(), grad = dy;
    if (auto max = op.getMax())
      grad = g.mask(g.compare(P::le, x, g.scalar(x, max->convertToDouble())),
                    grad);
    if (auto min = op.getMin())
      grad = g.mask(g.compare(P::ge, x, g.scalar(x, min->convertToDouble())),
                    grad);
    dx[0] = grad;
    return success();
  });
  // y · (1 - y)
  rules.add<SigmoidOp>(
      [](GradBuilder &g, SigmoidOp op, Value dy, MutableArrayRef<Value> dx) {
        Value y = op.getResult();
        dx[0] = g.mul(dy, g.mul(y, g.sub(g.scalar(y, 1.0), y)));
        return success();
      });
  // 1 - y²
  rules.add<TanhOp>(
      [](GradBuilder &g, TanhOp op, Value dy, MutableArrayRef<Value> dx) {
        Value y = op.getResult();
        dx[0] = g.mul(dy, g.sub(g.scalar(y, 1.0), g.mul(y, y)));
        return success();
      });
  // s · (1 + x · (1 - s)), s = sigmoid(x)
  rules.add<SiluOp>(
      [](GradBuilder &g, SiluOp op, Value dy, MutableArrayRef<Value> dx) {
        Value x = op.getInput();
        Value s = g.builder().create<SigmoidOp>(g.location(), x);
        Value one = g.scalar(x, 1.0);
        dx[0] = g.mul(dy, g.mul(s, g.add(one, g.mul(x, g.sub(one, s)))));
        return success();
      });
  // Exact: d/dx x·Φ(x) = Φ(x) + x·φ(x), with Φ(x) = y / x read off the
  // saved result (½ at 0) and φ(x) = exp(-x²/2) / √(2π).
  // tanh approximation: with u = k(x + c·x³), t = tanh(u),
  // d/dx = ½(1 + t) + ½x(1 - t²)·k(1 + 3c·x²).
  rules.add<GeluOp>([](GradBuilder &g, GeluOp op, Value dy,
                       MutableArrayRef<Value> dx) -> LogicalResult {
    Value x = op.getInput();
    if (op.getApproximate() != GeluApproximation::tanh) {
      Value atZero = g.compare(P::eq, x, g.scalar(x, 0.0));
      Value cdf = g.where(atZero, g.scalar(x, 0.5), g.div(op.getResult(), x));
      Value pdf =
          g.scale(g.exp(g.scale(g.mul(x, x), -0.5)), 1.0 / std::sqrt(2 * M_PI));
      dx[0] = g.mul(dy, g.add(cdf, g.mul(x, pdf)));
      return success();
    }
    const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
    Value x2 = g.mul(x, x);
    Value u = g.scale(g.add(x, g.scale(g.mul(x2, x), c)), k);
    Value t = g.builder().create<TanhOp>(g.location(), u);
    Value one = g.scalar(x, 1.0);
    Value left = g.scale(g.add(one, t), 0.5);
    Value du = g.scale(g.add(one, g.scale(x2, 3 * c)), k);
    Value right = g.mul(g.scale(x, 0.5), g.mul(g.sub(one, g.mul(t, t)), du));
    dx[0] = g.mul(dy, g.add(left, right));
    return success();
  });
  // y · (dy - Σ dy·y)
  rules.add<SoftmaxOp>(
      [](GradBuilder &g, SoftmaxOp op, Value dy, MutableArrayRef<Value> dx) {
        Value y = op.getResult();
        Value dot = g.sum(g.mul(dy, y), {op.getSignedDim()}, /*keepdim=*/true);
        dx[0] = g.mul(y, g.sub(dy, dot));
        return success();
      });
  // dy - exp(y) · Σ dy
  rules.add<LogSoftmaxOp>(
      [](GradBuilder &g, LogSoftmaxOp op, Value dy, MutableArrayRef<Value> dx) {
        Value total = g.sum(dy, {op.getSignedDim()}, /*keepdim=*/true);
        dx[0] = g.sub(dy, g.mul(g.exp(op.getResult()), total));
        return success();
      });
}
