//===- Normalization.cpp - nn::functional: normalization and reductions ---===//
//
// Records the ops of nn/Functional/Normalization.h into the current trace.
// batch_norm picks the op the way F.batch_norm picks its kernel: running
// statistics in eval (nn.batch_norm), batch statistics plus the running
// update in training (nn.batch_norm_training, whose new statistics are
// written back to the buffers with nn.store), and batch statistics from
// nn.mean / nn.var when there are no running statistics.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Normalization.h"

#include "../TraceContext.h"

#include "nn/Functional.h"
#include "nn/IR/NNOps.h"

#include <cmath>

namespace nn::functional {

using detail::TraceContext;

namespace {

/// The input value of a one-input op.
mlir::Value inputOf(TraceContext &t, const Tensor &input, const char *op) {
  return t.valueOf(input, op, "input");
}

/// An optional operand: the null value for an undefined tensor.
mlir::Value optionalOf(TraceContext &t, const Tensor &tensor, const char *op,
                       const char *role) {
  return tensor.defined() ? t.valueOf(tensor, op, role) : mlir::Value();
}

template <typename OpTy>
Tensor reduce(const char *name, const Tensor &input,
              const std::vector<int64_t> &dims, bool keepdim) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = inputOf(t, input, name);
  return t.emit<OpTy>(x.getType(), x, t.builder.getDenseI64ArrayAttr(dims),
                      keepdim ? t.builder.getUnitAttr() : mlir::UnitAttr());
}

template <typename OpTy>
Tensor argReduce(const char *name, const Tensor &input,
                 std::optional<int64_t> dim, bool keepdim) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = inputOf(t, input, name);
  return t.emit<OpTy>(x.getType(), x,
                      dim ? t.builder.getI64IntegerAttr(*dim)
                          : mlir::IntegerAttr(),
                      keepdim ? t.builder.getUnitAttr() : mlir::UnitAttr());
}

} // namespace

Tensor sum(const Tensor &input, std::vector<int64_t> dims, bool keepdim) {
  return reduce<mlir::nn::SumOp>("sum", input, dims, keepdim);
}

Tensor mean(const Tensor &input, std::vector<int64_t> dims, bool keepdim) {
  return reduce<mlir::nn::MeanOp>("mean", input, dims, keepdim);
}

Tensor amax(const Tensor &input, std::vector<int64_t> dims, bool keepdim) {
  return reduce<mlir::nn::AmaxOp>("amax", input, dims, keepdim);
}

Tensor amin(const Tensor &input, std::vector<int64_t> dims, bool keepdim) {
  return reduce<mlir::nn::AminOp>("amin", input, dims, keepdim);
}

Tensor max(const Tensor &input) { return amax(input); }

std::tuple<Tensor, Tensor> max(const Tensor &input, int64_t dim, bool keepdim) {
  return {amax(input, {dim}, keepdim), argmax(input, dim, keepdim)};
}

Tensor min(const Tensor &input) { return amin(input); }

std::tuple<Tensor, Tensor> min(const Tensor &input, int64_t dim, bool keepdim) {
  return {amin(input, {dim}, keepdim), argmin(input, dim, keepdim)};
}

Tensor argmax(const Tensor &input, std::optional<int64_t> dim, bool keepdim) {
  return argReduce<mlir::nn::ArgmaxOp>("argmax", input, dim, keepdim);
}

Tensor argmin(const Tensor &input, std::optional<int64_t> dim, bool keepdim) {
  return argReduce<mlir::nn::ArgminOp>("argmin", input, dim, keepdim);
}

Tensor var(const Tensor &input, std::vector<int64_t> dims,
           const VarFuncOptions &options) {
  TraceContext &t = TraceContext::current("var");
  mlir::Value x = inputOf(t, input, "var");
  return t.emit<mlir::nn::VarOp>(
      x.getType(), x, t.builder.getDenseI64ArrayAttr(dims),
      t.builder.getI64IntegerAttr(options.correction()),
      options.keepdim() ? t.builder.getUnitAttr() : mlir::UnitAttr());
}

Tensor layer_norm(const Tensor &input, const LayerNormFuncOptions &options) {
  TraceContext &t = TraceContext::current("layer_norm");
  mlir::Value x = inputOf(t, input, "layer_norm");
  mlir::Value w = optionalOf(t, options.weight(), "layer_norm", "weight");
  mlir::Value b = optionalOf(t, options.bias(), "layer_norm", "bias");
  return t.emit<mlir::nn::LayerNormOp>(
      x.getType(), x, w, b,
      t.builder.getDenseI64ArrayAttr(options.normalized_shape()),
      t.builder.getF64FloatAttr(options.eps()));
}

Tensor group_norm(const Tensor &input, const GroupNormFuncOptions &options) {
  TraceContext &t = TraceContext::current("group_norm");
  mlir::Value x = inputOf(t, input, "group_norm");
  mlir::Value w = optionalOf(t, options.weight(), "group_norm", "weight");
  mlir::Value b = optionalOf(t, options.bias(), "group_norm", "bias");
  return t.emit<mlir::nn::GroupNormOp>(
      x.getType(), x, w, b, t.builder.getI64IntegerAttr(options.num_groups()),
      t.builder.getF64FloatAttr(options.eps()));
}

Tensor batch_norm(const Tensor &input, const Tensor &running_mean,
                  const Tensor &running_var,
                  const BatchNormFuncOptions &options) {
  TraceContext &t = TraceContext::current("batch_norm");
  if (running_mean.defined() != running_var.defined())
    t.fail("batch_norm: running_mean and running_var must both be given or "
           "both be undefined");
  mlir::Value x = inputOf(t, input, "batch_norm");
  mlir::Value w = optionalOf(t, options.weight(), "batch_norm", "weight");
  mlir::Value b = optionalOf(t, options.bias(), "batch_norm", "bias");
  mlir::FloatAttr eps = t.builder.getF64FloatAttr(options.eps());
  bool useBatchStats = options.training() || !running_mean.defined();

  if (!useBatchStats) {
    mlir::Value m = t.valueOf(running_mean, "batch_norm", "running_mean");
    mlir::Value v = t.valueOf(running_var, "batch_norm", "running_var");
    return t.emit<mlir::nn::BatchNormOp>(x.getType(), x, m, v, w, b, eps);
  }

  if (!running_mean.defined()) {
    // Batch statistics only: mean and biased variance over all but dim 1.
    if (input.dim() < 2)
      t.fail("batch_norm: input must be [N, C, *] (at least 2-D), got " +
             shape_str(input.shape()));
    if (input.numel() == input.shape()[1])
      t.fail("batch_norm: expected more than 1 value per channel when "
             "training, got input " +
             shape_str(input.shape()));
    std::vector<int64_t> dims = {0};
    for (int64_t i = 2; i < input.dim(); ++i)
      dims.push_back(i);
    Tensor batchMean = mean(input, dims);
    Tensor batchVar = var(input, dims, VarFuncOptions().correction(0));
    mlir::Value m = t.valueOf(batchMean, "batch_norm", "mean");
    mlir::Value v = t.valueOf(batchVar, "batch_norm", "var");
    return t.emit<mlir::nn::BatchNormOp>(x.getType(), x, m, v, w, b, eps);
  }

  mlir::Value m = t.valueOf(running_mean, "batch_norm", "running_mean");
  mlir::Value v = t.valueOf(running_var, "batch_norm", "running_var");
  mlir::Value count = optionalOf(t, options.num_batches_tracked(), "batch_norm",
                                 "num_batches_tracked");
  if (!options.momentum() && !count)
    t.fail("batch_norm: momentum=None (a cumulative average) needs the "
           "num_batches_tracked buffer");
  std::optional<double> momentum = options.momentum();
  mlir::FloatAttr momentumAttr =
      momentum ? t.builder.getF64FloatAttr(*momentum) : mlir::FloatAttr();
  // emit<> sets every result's type from inference; the guesses (one per
  // result, none for the absent count) only fix the result count.
  Tensor y = t.emit<mlir::nn::BatchNormTrainingOp>(
      x.getType(), m.getType(), v.getType(),
      count ? count.getType() : mlir::Type(), x, m, v, w, b, count, eps,
      momentumAttr);
  auto op = llvm::cast<mlir::nn::BatchNormTrainingOp>(
      t.valueOf(y, "batch_norm", "result").getDefiningOp());
  t.store(running_mean, op.getNewRunningMean(), "batch_norm");
  t.store(running_var, op.getNewRunningVar(), "batch_norm");
  if (count)
    t.store(options.num_batches_tracked(), op.getNewNumBatchesTracked(),
            "batch_norm");
  return y;
}

void assign_buffer(const Tensor &buffer, const Tensor &value) {
  TraceContext &t = TraceContext::current("assign_buffer");
  t.store(buffer, t.valueOf(value, "assign_buffer", "value"), "assign_buffer");
}

namespace {

/// ||x||_p over `dim` (p positive or infinite), failing for other p.
Tensor pNorm(const char *op, const Tensor &x, double p, int64_t dim,
             bool keepdim) {
  if (!(p > 0))
    TraceContext::current(op).fail(std::string(op) +
                                   ": p must be positive or inf, got " +
                                   std::to_string(p));
  if (p == 2.0)
    return sqrt(sum(x * x, {dim}, keepdim));
  if (p == 1.0)
    return sum(abs(x), {dim}, keepdim);
  if (std::isinf(p))
    return amax(abs(x), {dim}, keepdim);
  return pow(sum(pow(abs(x), p), {dim}, keepdim), 1.0 / p);
}

} // namespace

Tensor normalize(const Tensor &input, const NormalizeFuncOptions &options) {
  Tensor norm = pNorm("normalize", input, options.p(), options.dim(), true);
  return input / clamp(norm, options.eps(), std::nullopt);
}

Tensor cosine_similarity(const Tensor &x1, const Tensor &x2,
                         const CosineSimilarityFuncOptions &options) {
  // aten/src/ATen/native/Distance.cpp: each input divided by its 2-norm
  // (at least eps), then the dot product; the same rounding as PyTorch's.
  NormalizeFuncOptions unit;
  unit.p(2.0).dim(options.dim()).eps(options.eps());
  return sum(normalize(x1, unit) * normalize(x2, unit), {options.dim()});
}

Tensor pairwise_distance(const Tensor &x1, const Tensor &x2,
                         const PairwiseDistanceFuncOptions &options) {
  return pNorm("pairwise_distance", x1 - x2 + options.eps(), options.p(), -1,
               options.keepdim());
}

Tensor instance_norm(const Tensor &input,
                     const InstanceNormFuncOptions &options) {
  TraceContext &t = TraceContext::current("instance_norm");
  if (input.dim() < 3)
    t.fail("instance_norm: input must be [N, C, *] (3 dims or more), got " +
           shape_str(input.shape()));
  const int64_t channels = input.size(1);
  const Tensor &runningMean = options.running_mean(),
               &runningVar = options.running_var();
  if (runningMean.defined() != runningVar.defined())
    t.fail("instance_norm: running_mean and running_var must be given "
           "together");
  if (!options.use_input_stats()) {
    if (!runningMean.defined())
      t.fail("instance_norm: use_input_stats=false needs running_mean and "
             "running_var");
    return batch_norm(input, runningMean, runningVar,
                      BatchNormFuncOptions()
                          .weight(options.weight())
                          .bias(options.bias())
                          .eps(options.eps()));
  }
  if (runningMean.defined()) {
    // PyTorch runs batch_norm on [1, N·C, *] with the running statistics
    // repeated N times, then averages the N updated copies: the momentum
    // step toward the batch's average of the instance statistics.
    std::vector<int64_t> spatial;
    for (int64_t d = 2; d < input.dim(); ++d)
      spatial.push_back(d);
    const double m = options.momentum();
    Tensor means = mean(mean(input, spatial), {0});
    Tensor vars = mean(var(input, spatial), {0});
    assign_buffer(runningMean, runningMean * (1 - m) + means * m);
    assign_buffer(runningVar, runningVar * (1 - m) + vars * m);
  }
  return group_norm(input, GroupNormFuncOptions(channels)
                               .weight(options.weight())
                               .bias(options.bias())
                               .eps(options.eps()));
}

} // namespace nn::functional
