//===- Loss.cpp - nn::functional: loss functions --------------------------===//
//
// Records the ops of nn/Functional/Loss.h into the current trace.
// mse_loss, l1_loss and nll_loss are one op each; cross_entropy is
// log_softmax + nll_loss, as PyTorch decomposes it, and with label smoothing
// or probability targets adds PyTorch's smoothing terms from existing ops
// (aten/src/ATen/native/LossNLL.cpp, cross_entropy_loss_label_smoothing and
// cross_entropy_loss_prob_target).
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Loss.h"

#include "../TraceContext.h"

#include "nn/Functional.h"
#include "nn/IR/NNOps.h"

namespace nn {

std::string reduction_name(Reduction reduction) {
  switch (reduction) {
  case Reduction::None:
    return "none";
  case Reduction::Mean:
    return "mean";
  case Reduction::Sum:
    return "sum";
  case Reduction::BatchMean:
    return "batchmean";
  }
  return "?";
}

namespace functional {

using detail::TraceContext;

namespace {

/// Fails for batchmean, which only kl_div takes.
void refuseBatchMean(TraceContext &t, const char *op, Reduction reduction) {
  if (reduction == Reduction::BatchMean)
    t.fail(std::string(op) + ": reduction batchmean is kl_div's alone");
}

mlir::nn::LossReduction toIR(TraceContext &t, const char *op,
                             Reduction reduction) {
  refuseBatchMean(t, op, reduction);
  switch (reduction) {
  case Reduction::None:
    return mlir::nn::LossReduction::none;
  case Reduction::Mean:
    return mlir::nn::LossReduction::mean;
  case Reduction::Sum:
  case Reduction::BatchMean:
    return mlir::nn::LossReduction::sum;
  }
  throw Error("unknown loss reduction");
}

template <typename OpTy>
Tensor pointwiseLoss(const char *name, const Tensor &input,
                     const Tensor &target, Reduction reduction) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = t.valueOf(input, name, "input");
  mlir::Value y = t.valueOf(target, name, "target");
  return t.emit<OpTy>(x.getType(), x, y,
                      mlir::nn::LossReductionAttr::get(
                          t.builder.getContext(), toIR(t, name, reduction)));
}

/// A rank-0 constant `value` of `like`'s dtype, as a tensor of the trace.
Tensor constant(TraceContext &t, double value, const Tensor &like,
                const char *op) {
  return t.wrap(t.scalar(value, t.valueOf(like, op, "input").getType()));
}

/// The class dim of a cross_entropy / nll_loss input: 1, or 0 for [C].
int64_t classDim(const Tensor &input) { return input.dim() == 1 ? 0 : 1; }

/// `weight` [C] shaped to broadcast along the class dim of `input`.
Tensor classWeight(const Tensor &weight, const Tensor &input) {
  Shape shape(input.dim() - classDim(input), 1);
  shape[0] = weight.numel();
  return reshape(weight, shape);
}

/// `loss` (per element, of `op`) reduced as `reduction` says; batchmean is
/// refused (kl_div, which takes it, handles it before).
Tensor reduce(const char *op, const Tensor &loss, Reduction reduction) {
  switch (reduction) {
  case Reduction::None:
    return loss;
  case Reduction::Sum:
    return sum(loss);
  case Reduction::Mean:
    return mean(loss);
  case Reduction::BatchMean:
    refuseBatchMean(TraceContext::current(op), op, reduction);
  }
  return loss;
}

/// cross_entropy with class-probability targets (shaped like input):
/// -Σ_c weight[c] · target[c] · log_softmax(input)[c], averaged over the
/// elements (not the weights) for mean.
Tensor crossEntropyProbabilities(const Tensor &logProbs, Tensor target,
                                 const CrossEntropyFuncOptions &options) {
  int64_t dim = classDim(logProbs);
  double classes = static_cast<double>(logProbs.size(dim));
  if (options.label_smoothing() > 0)
    target = target * (1 - options.label_smoothing()) +
             options.label_smoothing() / classes;
  Tensor terms = logProbs * target;
  if (options.weight().defined())
    terms = terms * classWeight(options.weight(), logProbs);
  return reduce("cross_entropy", -sum(terms, {dim}), options.reduction());
}

/// Fails unless `input` and `target` are of one shape, as PyTorch's
/// binary cross entropies demand (and as nn demands of every elementwise
/// loss: a broadcast target is more often a bug than meant).
void requireSameShape(TraceContext &t, const char *op, const Tensor &input,
                      const Tensor &target) {
  if (target.shape() != input.shape())
    t.fail(std::string(op) + ": input " + shape_str(input.shape()) +
           " and target " + shape_str(target.shape()) +
           " must have the same shape");
}

/// With z = |input - target|: quadratic·z² where z < limit, else
/// linearScale·(z - linearShift); for smooth_l1_loss and huber_loss.
Tensor piecewiseLoss(const char *op, const Tensor &input, const Tensor &target,
                     double limit, double quadratic, double linearScale,
                     double linearShift, Reduction reduction) {
  TraceContext &t = TraceContext::current(op);
  requireSameShape(t, op, input, target);
  Tensor z = abs(input - target);
  Tensor loss =
      where(lt(z, limit), z * z * quadratic, (z - linearShift) * linearScale);
  return reduce(op, loss, reduction);
}

} // namespace

Tensor mse_loss(const Tensor &input, const Tensor &target,
                const MSELossFuncOptions &options) {
  return pointwiseLoss<mlir::nn::MseLossOp>("mse_loss", input, target,
                                            options.reduction());
}

Tensor l1_loss(const Tensor &input, const Tensor &target,
               const L1LossFuncOptions &options) {
  return pointwiseLoss<mlir::nn::L1LossOp>("l1_loss", input, target,
                                           options.reduction());
}

Tensor nll_loss(const Tensor &input, const Tensor &target,
                const NLLLossFuncOptions &options) {
  TraceContext &t = TraceContext::current("nll_loss");
  mlir::Value x = t.valueOf(input, "nll_loss", "input");
  mlir::Value y = t.valueOf(target, "nll_loss", "target");
  mlir::Value w = options.weight().defined()
                      ? t.valueOf(options.weight(), "nll_loss", "weight")
                      : mlir::Value();
  return t.emit<mlir::nn::NllLossOp>(
      x.getType(), x, y, w,
      mlir::nn::LossReductionAttr::get(
          t.builder.getContext(), toIR(t, "nll_loss", options.reduction())),
      t.builder.getI64IntegerAttr(options.ignore_index()));
}

Tensor cross_entropy(const Tensor &input, const Tensor &target,
                     const CrossEntropyFuncOptions &options) {
  TraceContext &t = TraceContext::current("cross_entropy");
  double smoothing = options.label_smoothing();
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    t.fail("cross_entropy: label_smoothing must be between 0.0 and 1.0, got " +
           std::to_string(smoothing));
  if (input.dim() < 1)
    t.fail("cross_entropy: input must be [N, C, ...] or [C], got a scalar");
  Tensor logProbs = log_softmax(input, classDim(input));
  if (is_floating_point(target.dtype())) {
    if (target.shape() != input.shape())
      t.fail("cross_entropy: probability target " + shape_str(target.shape()) +
             " must have the shape of input " + shape_str(input.shape()));
    if (options.ignore_index() >= 0)
      t.fail("cross_entropy: ignore_index is not supported for floating "
             "point target");
    return crossEntropyProbabilities(logProbs, target, options);
  }
  NLLLossFuncOptions nll;
  nll.weight(options.weight())
      .ignore_index(options.ignore_index())
      .reduction(options.reduction());
  Tensor loss = nll_loss(logProbs, target, nll);
  if (smoothing == 0.0)
    return loss;

  // PyTorch: (1 - ε)·nll + ε/C · smooth, smooth = -Σ_c weight[c]·logp[c]
  // with ignored elements 0, reduced like nll (mean: divided by the total
  // weight of the elements not ignored).
  int64_t dim = classDim(input);
  double classes = static_cast<double>(input.size(dim));
  Tensor weighted = options.weight().defined()
                        ? logProbs * classWeight(options.weight(), input)
                        : logProbs;
  Tensor smooth = -sum(weighted, {dim});
  Tensor kept =
      ne(target, constant(t, options.ignore_index(), target, "cross_entropy"));
  smooth = where(kept, smooth, constant(t, 0.0, smooth, "cross_entropy"));
  switch (options.reduction()) {
  case Reduction::None:
  case Reduction::BatchMean: // refused by nll_loss above
    break;
  case Reduction::Sum:
    smooth = sum(smooth);
    break;
  case Reduction::Mean: {
    // Σ weight[t] over the elements not ignored: nll_loss of all -1.
    Tensor minusOnes =
        expand(constant(t, -1.0, input, "cross_entropy"), input.shape());
    Tensor total = nll_loss(minusOnes, target,
                            NLLLossFuncOptions()
                                .weight(options.weight())
                                .ignore_index(options.ignore_index())
                                .reduction(kSum));
    smooth = sum(smooth) / total;
    break;
  }
  }
  return loss * (1 - smoothing) + smooth * (smoothing / classes);
}

Tensor binary_cross_entropy(const Tensor &input, const Tensor &target,
                            const BinaryCrossEntropyFuncOptions &options) {
  TraceContext &t = TraceContext::current("binary_cross_entropy");
  requireSameShape(t, "binary_cross_entropy", input, target);
  // PyTorch's CPU kernel: (t - 1)·max(log(1 - x), -100) - t·max(log(x), -100).
  Tensor floor = constant(t, -100.0, input, "binary_cross_entropy");
  Tensor loss = (target - 1.0) * maximum(log(1.0 - input), floor) -
                target * maximum(log(input), floor);
  if (options.weight().defined())
    loss = loss * options.weight();
  return reduce("binary_cross_entropy", loss, options.reduction());
}

Tensor binary_cross_entropy_with_logits(
    const Tensor &input, const Tensor &target,
    const BinaryCrossEntropyWithLogitsFuncOptions &options) {
  TraceContext &t = TraceContext::current("binary_cross_entropy_with_logits");
  requireSameShape(t, "binary_cross_entropy_with_logits", input, target);
  // aten/src/ATen/native/Loss.cpp, binary_cross_entropy_with_logits: the
  // log-sum-exp shifted by max(-x, 0), so no exp overflows.
  Tensor maxVal = maximum(
      -input, constant(t, 0.0, input, "binary_cross_entropy_with_logits"));
  Tensor logTerm = log(exp(-maxVal) + exp(-input - maxVal));
  Tensor loss = (1.0 - target) * input;
  if (options.pos_weight().defined()) {
    Tensor logWeight = (options.pos_weight() - 1.0) * target + 1.0;
    loss = loss + logWeight * (logTerm + maxVal);
  } else {
    loss = loss + maxVal + logTerm;
  }
  if (options.weight().defined())
    loss = loss * options.weight();
  return reduce("binary_cross_entropy_with_logits", loss, options.reduction());
}

Tensor smooth_l1_loss(const Tensor &input, const Tensor &target,
                      const SmoothL1LossFuncOptions &options) {
  double beta = options.beta();
  if (!(beta >= 0.0))
    TraceContext::current("smooth_l1_loss")
        .fail("smooth_l1_loss: beta must be non-negative, got " +
              std::to_string(beta));
  if (beta == 0.0)
    return l1_loss(input, target, L1LossFuncOptions(options.reduction()));
  return piecewiseLoss("smooth_l1_loss", input, target, beta, 0.5 / beta, 1.0,
                       0.5 * beta, options.reduction());
}

Tensor huber_loss(const Tensor &input, const Tensor &target,
                  const HuberLossFuncOptions &options) {
  double delta = options.delta();
  if (!(delta > 0.0))
    TraceContext::current("huber_loss")
        .fail("huber_loss: delta must be positive, got " +
              std::to_string(delta));
  return piecewiseLoss("huber_loss", input, target, delta, 0.5, delta,
                       0.5 * delta, options.reduction());
}

Tensor kl_div(const Tensor &input, const Tensor &target,
              const KLDivFuncOptions &options) {
  TraceContext &t = TraceContext::current("kl_div");
  requireSameShape(t, "kl_div", input, target);
  // aten/src/ATen/native/Loss.cpp, kl_div: xlogy(t, t) - t·x, or
  // exp(t)·(t - x). xlogy is 0 at t = 0; log reads 1 there, so that the
  // branch not taken has a finite gradient.
  Tensor loss;
  if (options.log_target()) {
    loss = exp(target) * (target - input);
  } else {
    Tensor zero = constant(t, 0.0, input, "kl_div");
    Tensor absent = eq(target, zero);
    Tensor safe = where(absent, constant(t, 1.0, input, "kl_div"), target);
    loss = where(absent, zero, target * log(safe)) - target * input;
  }
  // batchmean: the sum over the batch size, PyTorch's F.kl_div.
  if (options.reduction() == Reduction::BatchMean)
    return loss.dim() == 0 ? sum(loss)
                           : sum(loss) / static_cast<double>(loss.size(0));
  return reduce("kl_div", loss, options.reduction());
}

} // namespace functional
} // namespace nn
