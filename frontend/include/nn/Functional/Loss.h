//===- Loss.h - nn::functional: loss functions ------------------*- C++ -*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows. Signatures and options mirror libtorch's torch::nn::functional:
//
//   Tensor loss = F::cross_entropy(logits, labels);          // labels: i64
//   F::nll_loss(log_probs, labels, F::NLLLossFuncOptions().ignore_index(0));
//   F::mse_loss(y, y_ref, F::MSELossFuncOptions(nn::kSum));
//
// `mean` and `sum` give a scalar, `none` the per-element loss.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_LOSS_H
#define NN_FUNCTIONAL_LOSS_H

#include "nn/Options/Loss.h"
#include "nn/Runtime/Tensor.h"

namespace nn::functional {

/// (input - target)², input and target of one shape and dtype.
Tensor mse_loss(const Tensor &input, const Tensor &target,
                const MSELossFuncOptions &options = {});
/// |input - target|.
Tensor l1_loss(const Tensor &input, const Tensor &target,
               const L1LossFuncOptions &options = {});
/// input: log-probabilities [N, C, d1, ...] or [C]; target: i64 class
/// indices [N, d1, ...] or a scalar. Targets outside [0, C) are not
/// checked when the compiled model runs (they count as ignored).
Tensor nll_loss(const Tensor &input, const Tensor &target,
                const NLLLossFuncOptions &options = {});
/// log_softmax over the class dim (1, or 0 for a [C] input) then nll_loss,
/// as PyTorch decomposes it. `target` is either i64 class indices (shaped
/// as for nll_loss) or float class probabilities shaped like `input` (then
/// ignore_index must stay negative, as in PyTorch). label_smoothing mixes
/// the target with the uniform distribution by PyTorch's formula.
Tensor cross_entropy(const Tensor &input, const Tensor &target,
                     const CrossEntropyFuncOptions &options = {});
/// -w·(t·log(x) + (1 - t)·log(1 - x)), each log at least -100 (PyTorch's
/// clamp, so x = 0 or 1 gives 100, not inf): input probabilities in [0, 1]
/// (not checked when the compiled model runs: outside it the loss is NaN),
/// target of the input's shape.
Tensor binary_cross_entropy(const Tensor &input, const Tensor &target,
                            const BinaryCrossEntropyFuncOptions &options = {});
/// binary_cross_entropy of sigmoid(input), computed from the logits as
/// PyTorch does, without overflow: (1 - t)·x + l·(log(e^-m + e^(-x-m)) + m),
/// m = max(-x, 0), l = 1 + (pos_weight - 1)·t; times the weight.
Tensor binary_cross_entropy_with_logits(
    const Tensor &input, const Tensor &target,
    const BinaryCrossEntropyWithLogitsFuncOptions &options = {});
/// 0.5·d²/beta where |d| < beta, else |d| - 0.5·beta (d = input - target);
/// beta 0 is l1_loss.
Tensor smooth_l1_loss(const Tensor &input, const Tensor &target,
                      const SmoothL1LossFuncOptions &options = {});
/// 0.5·d² where |d| < delta, else delta·(|d| - 0.5·delta).
Tensor huber_loss(const Tensor &input, const Tensor &target,
                  const HuberLossFuncOptions &options = {});
/// target·(log(target) - input) (0 where target is 0), or with log_target
/// exp(target)·(target - input); input and target of one shape.
Tensor kl_div(const Tensor &input, const Tensor &target,
              const KLDivFuncOptions &options = {});

} // namespace nn::functional

#endif // NN_FUNCTIONAL_LOSS_H
