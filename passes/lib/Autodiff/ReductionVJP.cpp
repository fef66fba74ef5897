//===- ReductionVJP.cpp - Gradients of the reductions ---------------------===//
//
// A reduction's gradient is its result's gradient spread back over the
// reduced dims: evenly for sum and mean, to the extreme elements for amax
// and amin (split evenly among ties, as PyTorch's).
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

using namespace mlir;
using namespace mlir::nn;

using P = ComparisonPredicate;

/// The reduced dims of a reduction over `dims` (all when empty) of a value
/// of rank `rank`, in [0, rank), and how many elements each result sums.
static SmallVector<int64_t>
reducedDims(ArrayRef<int64_t> dims, ArrayRef<int64_t> shape, int64_t &count) {
  int64_t rank = shape.size();
  SmallVector<int64_t> reduced;
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d)
      reduced.push_back(d);
  for (int64_t d : dims)
    reduced.push_back(d < 0 ? d + rank : d);
  count = 1;
  for (int64_t d : reduced)
    count *= shape[d];
  return reduced;
}

/// `dy` (the gradient of a reduction of `x` over `dims`) in the shape with
/// the reduced dims kept, then broadcast to `x`'s shape.
template <typename Op>
static Value spread(GradBuilder &g, Op op, Value dy, int64_t &count) {
  ArrayRef<int64_t> shape =
      llvm::cast<RankedTensorType>(op.getInput().getType()).getShape();
  SmallVector<int64_t> kept(shape);
  for (int64_t d : reducedDims(op.getDims(), shape, count))
    kept[d] = 1;
  return g.expand(g.reshape(dy, kept), shape);
}

/// amax / amin: dy to the elements equal to the result, divided by their
/// count.
template <typename Op>
static LogicalResult extremumVJP(GradBuilder &g, Op op, Value dy,
                                 MutableArrayRef<Value> dx) {
  int64_t count;
  Value x = op.getInput();
  Value extreme = g.compare(P::eq, x, spread(g, op, op.getResult(), count));
  Value hits = g.mask(extreme, g.scalar(x, 1.0));
  Value ties = spread(g, op, g.sum(hits, op.getDims(), op.getKeepdim()), count);
  dx[0] = g.mask(extreme, g.div(spread(g, op, dy, count), ties));
  return success();
}

void mlir::nn::populateReductionVJPRules(VJPRules &rules) {
  rules.add<SumOp>(
      [](GradBuilder &g, SumOp op, Value dy, MutableArrayRef<Value> dx) {
        int64_t count;
        dx[0] = spread(g, op, dy, count);
        return success();
      });
  rules.add<MeanOp>(
      [](GradBuilder &g, MeanOp op, Value dy, MutableArrayRef<Value> dx) {
        int64_t count;
        Value spreadDy = spread(g, op, dy, count);
        dx[0] = g.scale(spreadDy, 1.0 / double(count));
        return success();
      });
  rules.add<AmaxOp>(
      [](GradBuilder &g, AmaxOp op, Value dy, MutableArrayRef<Value> dx) {
        return extremumVJP(g, op, dy, dx);
      });
  rules.add<AminOp>(
      [](GradBuilder &g, AminOp op, Value dy, MutableArrayRef<Value> dx) {
        return extremumVJP(g, op, dy, dx);
      });
}
