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

} // namespace nn::functional

#endif // NN_FUNCTIONAL_LOSS_H
