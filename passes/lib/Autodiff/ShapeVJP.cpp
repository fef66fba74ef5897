//===- ShapeVJP.cpp - Gradients of the shape ops --------------------------===//
//
// Moving elements around moves their gradients back: a reshape's gradient
// is reshaped back, a transpose's transposed back, a permute's permuted by
// the inverse, an expand's summed over what it broadcast, a slice's put back
// between zeros, a concatenation's sliced apart. The ops that select by an
// index tensor (index_select, gather, embedding) send each gradient element
// back to its source by comparing the indices with every possible position
// (a one-hot mask, reduced by a matmul or a sum): no scatter op is needed,
// and repeated indices add up, as PyTorch's index_add does.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::nn;

/// The rule of an op that only reinterprets its input's shape.
template <typename Op> static void addReshapeLike(VJPRules &rules) {
  rules.add<Op>([](GradBuilder &g, Op op, Value dy, MutableArrayRef<Value> dx) {
    dx[0] = g.reshape(dy, shapeOf(op.getInput()));
    return success();
  });
}

/// `d` in [0, rank).
static int64_t normalDim(int64_t d, int64_t rank) {
  return d < 0 ? d + rank : d;
}

/// The i64 constant [0, 1, ..., n) shaped `shape` (n elements).
static Value positions(GradBuilder &g, int64_t n, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = i;
  OpBuilder &b = g.builder();
  auto type = RankedTensorType::get(shape, b.getI64Type());
  return b.create<arith::ConstantOp>(
      g.location(), DenseElementsAttr::get(type, ArrayRef(values)));
}

/// 1 where `index` (i64, shape [k]) selects position j of n, else 0: the
/// [k, n] one-hot matrix in `like`'s element type.
static Value oneHot(GradBuilder &g, Value index, int64_t n, Value like) {
  int64_t k = shapeOf(index)[0];
  Value hit = g.compare(ComparisonPredicate::eq, g.reshape(index, {k, 1}),
                        positions(g, n, {1, n}));
  return g.mask(hit, g.scalar(like, 1.0));
}

void mlir::nn::populateShapeVJPRules(VJPRules &rules) {
  addReshapeLike<ReshapeOp>(rules);
  addReshapeLike<FlattenOp>(rules);
  addReshapeLike<SqueezeOp>(rules);
  addReshapeLike<UnsqueezeOp>(rules);
  rules.add<TransposeOp>(
      [](GradBuilder &g, TransposeOp op, Value dy, MutableArrayRef<Value> dx) {
        int64_t rank = shapeOf(dy).size();
        auto normal = [&](int64_t d) { return d < 0 ? d + rank : d; };
        dx[0] = g.transpose(dy, normal(op.getDim0Attr().getInt()),
                            normal(op.getDim1Attr().getInt()));
        return success();
      });
  rules.add<PermuteOp>(
      [](GradBuilder &g, PermuteOp op, Value dy, MutableArrayRef<Value> dx) {
        ArrayRef<int64_t> dims = op.getDims();
        int64_t rank = dims.size();
        SmallVector<int64_t> inverse(rank);
        for (int64_t i = 0; i < rank; ++i)
          inverse[dims[i] < 0 ? dims[i] + rank : dims[i]] = i;
        dx[0] = g.permute(dy, inverse);
        return success();
      });
  rules.add<ExpandOp>(
      [](GradBuilder &g, ExpandOp op, Value dy, MutableArrayRef<Value> dx) {
        dx[0] = g.unbroadcast(dy, op.getInput().getType());
        return success();
      });
  rules.add<SliceOp>(
      [](GradBuilder &g, SliceOp op, Value dy, MutableArrayRef<Value> dx) {
        ArrayRef<int64_t> shape = shapeOf(op.getInput());
        int64_t dim = normalDim(op.getDimAttr().getInt(), shape.size());
        int64_t size = shape[dim], start = op.getStartAttr().getInt();
        // The start as the op clamps it (negative: from the end).
        start = std::clamp<int64_t>(start < 0 ? start + size : start, 0, size);
        dx[0] = g.unslice(dy, dim, start, op.getStepAttr().getInt(), size);
        return success();
      });
  rules.add<CatOp>(
      [](GradBuilder &g, CatOp op, Value dy, MutableArrayRef<Value> dx) {
        int64_t dim = normalDim(op.getDimAttr().getInt(), shapeOf(dy).size());
        int64_t offset = 0;
        for (auto [i, input] : llvm::enumerate(op.getInputs())) {
          int64_t n = shapeOf(input)[dim];
          dx[i] = g.slice(dy, dim, offset, offset + n);
          offset += n;
        }
        return success();
      });
  // The padding's gradient is the interior's.
  rules.add<PadOp>(
      [](GradBuilder &g, PadOp op, Value dy, MutableArrayRef<Value> dx) {
        Value interior = dy;
        ArrayRef<int64_t> low = op.getLow(), shape = shapeOf(op.getInput());
        for (auto [d, size] : llvm::enumerate(shape))
          interior = g.slice(interior, d, low[d], low[d] + size);
        dx[0] = interior;
        return success();
      });
  rules.add<StackOp>(
      [](GradBuilder &g, StackOp op, Value dy, MutableArrayRef<Value> dx) {
        int64_t dim = normalDim(op.getDimAttr().getInt(), shapeOf(dy).size());
        for (auto [i, input] : llvm::enumerate(op.getInputs()))
          dx[i] = g.reshape(g.slice(dy, dim, i, i + 1), shapeOf(input));
        return success();
      });
  // The pieces' gradients concatenated, zeros for a piece without one.
  rules.addWithResults<SplitOp>([](GradBuilder &g, SplitOp op,
                                   ArrayRef<Value> dys,
                                   MutableArrayRef<Value> dx) {
    int64_t dim =
        normalDim(op.getDimAttr().getInt(), shapeOf(op.getInput()).size());
    SmallVector<Value> parts;
    for (auto [result, dy] : llvm::zip(op.getResults(), dys))
      parts.push_back(dy ? dy : g.filled(result, shapeOf(result), 0.0));
    dx[0] = g.cat(parts, dim);
    return success();
  });
  // y = x.index_select(dim, index) with index [k]: the gradient's dim,
  // moved last, times the [k, n] one-hot of the index, moved back.
  rules.add<IndexSelectOp>([](GradBuilder &g, IndexSelectOp op, Value dy,
                              MutableArrayRef<Value> dx) -> LogicalResult {
    Value x = op.getInput(), index = op.getIndex();
    ArrayRef<int64_t> shape = shapeOf(x);
    int64_t rank = shape.size();
    int64_t dim = normalDim(op.getDimAttr().getInt(), rank);
    if (rank == 0)
      return op.emitOpError("has no gradient rule for a scalar input");
    if (shapeOf(index).size() != 1)
      index = g.reshape(index, {1});
    Value moved = dim == rank - 1 ? dy : g.transpose(dy, dim, rank - 1);
    Value picked = g.matmul(moved, oneHot(g, index, shape[dim], dy));
    dx[0] = dim == rank - 1 ? picked : g.transpose(picked, dim, rank - 1);
    return success();
  });
  // weight [V, D], indices any shape: dweight = onehot(indices)ᵀ · dy, with
  // the padding row's gradient zero.
  rules.add<EmbeddingOp>([](GradBuilder &g, EmbeddingOp op, Value dy,
                            MutableArrayRef<Value> dx) {
    Value w = op.getWeight();
    int64_t rows = shapeOf(w)[0], dim = shapeOf(w)[1];
    int64_t count = llvm::cast<RankedTensorType>(op.getIndices().getType())
                        .getNumElements();
    Value ids = g.reshape(op.getIndices(), {count});
    Value hot = oneHot(g, ids, rows, dy);
    Value grad = g.matmul(g.transpose(hot, 0, 1), g.reshape(dy, {count, dim}));
    if (auto padding = op.getPaddingIdxAttr()) {
      Value isPadding =
          g.compare(ComparisonPredicate::eq, positions(g, rows, {rows, 1}),
                    g.scalar(ids, double(padding.getInt())));
      grad = g.where(isPadding, g.scalar(grad, 0.0), grad);
    }
    dx[1] = grad;
    return success();
  });
  // y[..., i, ...] = x[..., index[..., i, ...], ...] along dim: each
  // gradient element goes to the position its index names, summed over
  // the index's dim; where the index is shorter than the input in another
  // dim, the rest of that dim gets zeros.
  rules.add<GatherOp>([](GradBuilder &g, GatherOp op, Value dy,
                         MutableArrayRef<Value> dx) -> LogicalResult {
    Value x = op.getInput(), index = op.getIndex();
    ArrayRef<int64_t> shape = shapeOf(x), ishape = shapeOf(index);
    int64_t rank = shape.size();
    if (rank == 0)
      return op.emitOpError("has no gradient rule for a scalar input");
    int64_t dim = normalDim(op.getDimAttr().getInt(), rank);
    // [..., k, 1, ...] against positions [1, ..., n, ...] at dim + 1.
    SmallVector<int64_t> expanded(ishape);
    expanded.insert(expanded.begin() + dim + 1, 1);
    SmallVector<int64_t> along(rank + 1, 1);
    along[dim + 1] = shape[dim];
    Value hit = g.compare(ComparisonPredicate::eq, g.reshape(index, expanded),
                          positions(g, shape[dim], along));
    Value spread = g.mask(hit, g.reshape(dy, expanded));
    Value grad = g.sum(spread, {dim}, /*keepdim=*/false);
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && ishape[d] < shape[d])
        grad = g.unslice(grad, d, 0, 1, shape[d]);
    dx[0] = grad;
    return success();
  });
}
