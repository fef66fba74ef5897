//===- NormalizationVJP.cpp - Gradients of the normalizations -------------===//
//
// Normalizations recompute their statistics from the saved input (mean and
// 1/sqrt(var + eps), cheap reductions) rather than keeping them; then the
// usual formula over the normalized elements, with g = dy · weight:
//
//   dx = rstd · (g - mean(g) - x̂ · mean(g · x̂)),  x̂ = (x - mean) · rstd
//   dweight = Σ dy · x̂,  dbias = Σ dy   (over what the affine broadcasts)
//
// Eval batch norm normalizes with its mean and var operands: running
// buffers (constants to the gradient), or the batch statistics the frontend
// computed in the graph, which then get their gradients too.
// Train-mode batch norm's running-statistics results carry no gradient:
// PyTorch does not differentiate them either.
//
//===----------------------------------------------------------------------===//

#include "nn/Transforms/Autodiff.h"

using namespace mlir;
using namespace mlir::nn;

namespace {

/// [0, rank) without `keep`.
SmallVector<int64_t> allBut(int64_t rank, ArrayRef<int64_t> keep) {
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(keep, d))
      dims.push_back(d);
  return dims;
}

/// `v` ([C]) shaped [1, C, 1, ...] to broadcast along dim 1 of rank `rank`.
Value perChannel(GradBuilder &g, Value v, int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[1] = shapeOf(v)[0];
  return g.reshape(v, shape);
}

/// The normalized input and 1/sqrt(var + eps) of `x` over `dims` (biased
/// variance), each with the dims kept.
std::pair<Value, Value> standardize(GradBuilder &g, Value x,
                                    ArrayRef<int64_t> dims, double eps) {
  Value centered = g.sub(x, g.meanKeep(x, dims));
  Value var = g.meanKeep(g.mul(centered, centered), dims);
  Value rstd = g.rsqrt(g.add(var, g.scalar(x, eps)));
  return {g.mul(centered, rstd), rstd};
}

/// dx of a normalization over `dims` from g = dy · weight.
Value normalizedGrad(GradBuilder &g, Value gy, Value xhat, Value rstd,
                     ArrayRef<int64_t> dims) {
  Value proj = g.meanKeep(g.mul(gy, xhat), dims);
  return g.mul(rstd, g.sub(g.sub(gy, g.meanKeep(gy, dims)), g.mul(xhat, proj)));
}

/// Train-mode batch norm over every dim but the channel one (1), with the
/// statistics of the batch: the input's gradient and the affine's. The
/// affine's gradients are the sums normalizedGrad takes means of (mean(g) =
/// w·Σdy / n, mean(g·x̂) = w·Σdy·x̂ / n), so the batch is reduced twice, not
/// four times:
///
///   dx = w·rstd · (dy - Σdy / n - x̂ · Σ(dy·x̂) / n)
LogicalResult batchNormTrainVJP(GradBuilder &g, Value x, Value weight,
                                Value bias, double eps, Value dy,
                                MutableArrayRef<Value> dx, unsigned wi,
                                unsigned bi) {
  int64_t rank = shapeOf(x).size();
  SmallVector<int64_t> dims = allBut(rank, {1});
  auto [xhat, rstd] = standardize(g, x, dims, eps);
  Value sumDy = g.sum(dy, dims, /*keepdim=*/true);
  Value sumDyXhat = g.sum(g.mul(dy, xhat), dims, /*keepdim=*/true);
  // 1 / n, n the elements per channel.
  double perCount =
      double(shapeOf(x)[1]) /
      double(llvm::cast<RankedTensorType>(x.getType()).getNumElements());
  Value scale = weight ? g.mul(rstd, perChannel(g, weight, rank)) : rstd;
  dx[0] = g.mul(scale, g.sub(g.sub(dy, g.scale(sumDy, perCount)),
                             g.mul(xhat, g.scale(sumDyXhat, perCount))));
  ArrayRef<int64_t> channels = shapeOf(x).slice(1, 1);
  if (weight)
    dx[wi] = g.reshape(sumDyXhat, channels);
  if (bias)
    dx[bi] = g.reshape(sumDy, channels);
  return success();
}

/// Eval-mode batch norm over every dim but the channel one (1), normalizing
/// with its `mean` and `var` operands: the input's gradient, the affine's,
/// and the statistics' where the graph computed them.
LogicalResult batchNormEvalVJP(GradBuilder &g, Value x, Value mean, Value var,
                               Value weight, Value bias, double eps, Value dy,
                               MutableArrayRef<Value> dx, unsigned wi,
                               unsigned bi) {
  int64_t rank = shapeOf(x).size();
  SmallVector<int64_t> dims = allBut(rank, {1});
  Value gy = weight ? g.mul(dy, perChannel(g, weight, rank)) : dy;
  Value rstd = perChannel(g, g.rsqrt(g.add(var, g.scalar(var, eps))), rank);
  Value centered = g.sub(x, perChannel(g, mean, rank));
  dx[0] = g.mul(gy, rstd);
  // Statistics computed in the graph (batch statistics without running
  // ones are a mean and a var op) get theirs: -Σ g·rstd and
  // -½ Σ g·(x - mean)·rstd³; running buffers are constants.
  dx[1] = g.neg(g.sum(g.mul(gy, rstd), dims, /*keepdim=*/false));
  Value rstd3 = g.mul(rstd, g.mul(rstd, rstd));
  dx[2] = g.scale(g.sum(g.mul(g.mul(gy, centered), rstd3), dims, false), -0.5);
  if (weight)
    dx[wi] = g.sum(g.mul(dy, g.mul(centered, rstd)), dims, /*keepdim=*/false);
  if (bias)
    dx[bi] = g.sum(dy, dims, /*keepdim=*/false);
  return success();
}

} // namespace

void mlir::nn::populateNormalizationVJPRules(VJPRules &rules) {
  // Over the trailing normalized_shape dims; weight and bias are shaped
  // like them.
  rules.add<LayerNormOp>([](GradBuilder &g, LayerNormOp op, Value dy,
                            MutableArrayRef<Value> dx) {
    Value x = op.getInput(), w = op.getWeight(), b = op.getBias();
    int64_t rank = shapeOf(x).size(), k = op.getNormalizedShape().size();
    SmallVector<int64_t> norm, batch;
    for (int64_t d = 0; d < rank; ++d)
      (d >= rank - k ? norm : batch).push_back(d);
    auto [xhat, rstd] = standardize(g, x, norm, op.getEps().convertToDouble());
    Value gy = w ? g.mul(dy, w) : dy;
    dx[0] = normalizedGrad(g, gy, xhat, rstd, norm);
    unsigned next = 1;
    if (w)
      dx[next++] = g.reshape(g.sum(g.mul(dy, xhat), batch, true), shapeOf(w));
    if (b)
      dx[next] = g.reshape(g.sum(dy, batch, true), shapeOf(b));
    return success();
  });
  rules.add<BatchNormOp>(
      [](GradBuilder &g, BatchNormOp op, Value dy, MutableArrayRef<Value> dx) {
        return batchNormEvalVJP(g, op.getInput(), op.getMean(), op.getVar(),
                                op.getWeight(), op.getBias(),
                                op.getEps().convertToDouble(), dy, dx, 3,
                                op.getWeight() ? 4 : 3);
      });
  rules.add<BatchNormTrainingOp>([](GradBuilder &g, BatchNormTrainingOp op,
                                    Value dy, MutableArrayRef<Value> dx) {
    return batchNormTrainVJP(g, op.getInput(), op.getWeight(), op.getBias(),
                             op.getEps().convertToDouble(), dy, dx, 3,
                             op.getWeight() ? 4 : 3);
  });
  // x [N, C, *] in G groups of C/G channels: a layer norm per (n, group),
  // the affine per channel.
  rules.add<GroupNormOp>(
      [](GradBuilder &g, GroupNormOp op, Value dy, MutableArrayRef<Value> dx) {
        Value x = op.getInput(), w = op.getWeight(), b = op.getBias();
        ArrayRef<int64_t> shape = shapeOf(x);
        int64_t rank = shape.size(), groups = op.getNumGroupsAttr().getInt();
        int64_t perGroup = 1;
        for (int64_t d = 1; d < rank; ++d)
          perGroup *= shape[d];
        perGroup /= groups;
        SmallVector<int64_t> grouped = {shape[0], groups, perGroup};
        Value gy = w ? g.mul(dy, perChannel(g, w, rank)) : dy;
        auto [xhat, rstd] = standardize(g, g.reshape(x, grouped), {2},
                                        op.getEps().convertToDouble());
        dx[0] = g.reshape(
            normalizedGrad(g, g.reshape(gy, grouped), xhat, rstd, {2}), shape);
        SmallVector<int64_t> dims = allBut(rank, {1});
        Value xhatFull = g.reshape(xhat, shape);
        unsigned next = 1;
        if (w)
          dx[next++] = g.sum(g.mul(dy, xhatFull), dims, /*keepdim=*/false);
        if (b)
          dx[next] = g.sum(dy, dims, /*keepdim=*/false);
        return success();
      });
  // var = Σ (x - mean)² / (N - correction): dx = 2 (x - mean) / (N - c) · dy.
  rules.add<VarOp>(
      [](GradBuilder &g, VarOp op, Value dy, MutableArrayRef<Value> dx) {
        Value x = op.getInput();
        ArrayRef<int64_t> shape = shapeOf(x);
        int64_t rank = shape.size(), count = 1;
        SmallVector<int64_t> dims;
        for (int64_t d : op.getDims())
          dims.push_back(d < 0 ? d + rank : d);
        if (dims.empty())
          for (int64_t d = 0; d < rank; ++d)
            dims.push_back(d);
        SmallVector<int64_t> kept(shape);
        for (int64_t d : dims) {
          count *= shape[d];
          kept[d] = 1;
        }
        double divisor = double(count - op.getCorrectionAttr().getInt());
        Value centered = g.sub(x, g.meanKeep(x, dims));
        dx[0] = g.mul(g.scale(centered, 2.0 / divisor), g.reshape(dy, kept));
        return success();
      });
}
