//===- ShapeVJP.cpp - Gradients of the shape ops --------------------------===//
//
// Moving elements around moves their gradients back: a reshape's gradient
// is reshaped back, a transpose's transposed back, a permute's permuted by
// the inverse, an expand's summed over what it broadcast.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

using namespace mlir;
using namespace mlir::nn;

static ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType()).getShape();
}

/// The rule of an op that only reinterprets its input's shape.
template <typename Op> static void addReshapeLike(VJPRules &rules) {
  rules.add<Op>([](GradBuilder &g, Op op, Value dy, MutableArrayRef<Value> dx) {
    dx[0] = g.reshape(dy, shapeOf(op.getInput()));
    return success();
  });
}

void mlir::nn::populateShapeVJPRules(VJPRules &rules) {
  addReshapeLike<ReshapeOp>(rules);
  addReshapeLike<FlattenOp>(rules);
  addReshapeLike<SqueezeOp>(rules);
  addReshapeLike<UnsqueezeOp>(rules);
  rules.add<TransposeOp>([](GradBuilder &g, TransposeOp op, Value dy,
                            MutableArrayRef<Value> dx) {
    int64_t rank = shapeOf(dy).size();
    auto normal = [&](int64_t d) { return d < 0 ? d + rank : d; };
    dx[0] = g.transpose(dy, normal(op.getDim0Attr().getInt()),
                        normal(op.getDim1Attr().getInt()));
    return success();
  });
  rules.add<PermuteOp>([](GradBuilder &g, PermuteOp op, Value dy,
                          MutableArrayRef<Value> dx) {
    ArrayRef<int64_t> dims = op.getDims();
    int64_t rank = dims.size();
    SmallVector<int64_t> inverse(rank);
    for (int64_t i = 0; i < rank; ++i)
      inverse[dims[i] < 0 ? dims[i] + rank : dims[i]] = i;
    dx[0] = g.permute(dy, inverse);
    return success();
  });
  rules.add<ExpandOp>([](GradBuilder &g, ExpandOp op, Value dy,
                         MutableArrayRef<Value> dx) {
    dx[0] = g.unbroadcast(dy, op.getInput().getType());
    return success();
  });
}
