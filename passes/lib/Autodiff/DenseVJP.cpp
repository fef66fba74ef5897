//===- DenseVJP.cpp - Gradients of linear and matmul ----------------------===//
//
// Contractions differentiate into contractions: the GEMM kernels do the
// backward too. Batch dimensions an operand was broadcast over are summed.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

using namespace mlir;
using namespace mlir::nn;

/// `v`'s shape with all but the last dim merged: [M, K].
static Value asMatrix(GradBuilder &g, Value v) {
  ArrayRef<int64_t> shape = shapeOf(v);
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  return g.reshape(v, {rows, shape.back()});
}

void mlir::nn::populateDenseVJPRules(VJPRules &rules) {
  // y = x·Wᵀ + b with x [..., in], W [out, in]:
  // dx = dy·W, dW = Σ dyᵀ·x over the batch dims, db = Σ dy.
  rules.add<LinearOp>([](GradBuilder &g, LinearOp op, Value dy,
                         MutableArrayRef<Value> dx) -> LogicalResult {
    Value x = op.getInput(), w = op.getWeight();
    dx[0] = g.matmul(dy, w);
    Value dy2 = asMatrix(
        g, shapeOf(dy).size() == 1 ? g.reshape(dy, {1, shapeOf(dy)[0]}) : dy);
    Value x2 = asMatrix(
        g, shapeOf(x).size() == 1 ? g.reshape(x, {1, shapeOf(x)[0]}) : x);
    dx[1] = g.matmul(g.transpose(dy2, 0, 1), x2);
    if (Value b = op.getBias())
      dx[2] = g.unbroadcast(dy, b.getType());
    return success();
  });
  // torch.matmul: 1-D operands become a row (lhs) or a column (rhs) and
  // lose that dim again; batch dims broadcast.
  rules.add<MatmulOp>(
      [](GradBuilder &g, MatmulOp op, Value dy, MutableArrayRef<Value> dx) {
        Value a = op.getLhs(), b = op.getRhs();
        SmallVector<int64_t> aShape(shapeOf(a)), bShape(shapeOf(b));
        SmallVector<int64_t> yShape(shapeOf(dy));
        if (aShape.size() == 1) {
          aShape.insert(aShape.begin(), 1);
          yShape.insert(yShape.end() - (bShape.size() == 1 ? 0 : 1), 1);
        }
        if (bShape.size() == 1) {
          bShape.push_back(1);
          yShape.push_back(1);
        }
        Value a2 = g.reshape(a, aShape), b2 = g.reshape(b, bShape);
        Value dy2 = g.reshape(dy, yShape);
        int64_t ra = aShape.size(), rb = bShape.size();
        Value da = g.matmul(dy2, g.transpose(b2, rb - 2, rb - 1));
        Value db = g.matmul(g.transpose(a2, ra - 2, ra - 1), dy2);
        dx[0] = g.reshape(g.unbroadcast(da, a2.getType()), shapeOf(a));
        dx[1] = g.reshape(g.unbroadcast(db, b2.getType()), shapeOf(b));
        return success();
      });
}
