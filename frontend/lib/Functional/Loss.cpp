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
  }
  return "?";
}

namespace functional {

using detail::TraceContext;

namespace {

mlir::nn::LossReduction toIR(Reduction reduction) {
  switch (reduction) {
  case Reduction::None:
    return mlir::nn::LossReduction::none;
  case Reduction::Mean:
    return mlir::nn::LossReduction::mean;
  case Reduction::Sum:
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
                      mlir::nn::LossReductionAttr::get(t.builder.getContext(),
                                                       toIR(reduction)));
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
  Tensor loss = -sum(terms, {dim});
  switch (options.reduction()) {
  case Reduction::None:
    return loss;
  case Reduction::Sum:
    return sum(loss);
  case Reduction::Mean:
    return mean(loss);
  }
  return loss;
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
      mlir::nn::LossReductionAttr::get(t.builder.getContext(),
                                       toIR(options.reduction())),
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

} // namespace functional
} // namespace nn
