//===- Activation.h - nn::functional: activation functions -*- C++ -*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_ACTIVATION_H
#define NN_FUNCTIONAL_ACTIVATION_H

#include "nn/Frontend/Arg.h"
#include "nn/Runtime/Tensor.h"

#include <optional>
#include <string>

namespace nn::functional {

Tensor sigmoid(const Tensor &input);
Tensor tanh(const Tensor &input);
/// x · sigmoid(x).
Tensor silu(const Tensor &input);

/// F::gelu(x, F::GELUFuncOptions().approximate("tanh"))
struct GELUFuncOptions {
  /// "none" (exact, with erf) or "tanh".
  NN_ARG(std::string, approximate) = "none";
};
Tensor gelu(const Tensor &input, const GELUFuncOptions &options = {});

Tensor leaky_relu(const Tensor &input, double negative_slope = 0.01);
/// Limits to [min, max]; either bound may be absent (std::nullopt).
Tensor clamp(const Tensor &input, std::optional<double> min,
             std::optional<double> max);
/// clamp(x, min_val, max_val).
Tensor hardtanh(const Tensor &input, double min_val = -1.0,
                double max_val = 1.0);
/// clamp(x, 0, 6).
Tensor relu6(const Tensor &input);
/// clamp(x + 3, 0, 6) / 6, as torch.nn.functional.hardsigmoid.
Tensor hardsigmoid(const Tensor &input);
/// x · clamp(x + 3, 0, 6) / 6, as torch.nn.functional.hardswish
/// (MobileNetV3's activation).
Tensor hardswish(const Tensor &input);
/// x for x > 0, alpha · (exp(x) − 1) otherwise, as
/// torch.nn.functional.elu.
Tensor elu(const Tensor &input, double alpha = 1.0);
/// scale · elu(x, alpha) with PyTorch's constants (self-normalizing
/// networks), as torch.nn.functional.selu.
Tensor selu(const Tensor &input);
/// x for x > 0, alpha · (exp(x / alpha) − 1) otherwise, as
/// torch.nn.functional.celu.
Tensor celu(const Tensor &input, double alpha = 1.0);
/// log(1 + exp(beta · x)) / beta, and x where beta · x > threshold, as
/// torch.nn.functional.softplus.
Tensor softplus(const Tensor &input, double beta = 1.0,
                double threshold = 20.0);
/// x · tanh(softplus(x)), as torch.nn.functional.mish.
Tensor mish(const Tensor &input);
/// log(sigmoid(x)), computed as min(x, 0) − log(1 + exp(−|x|)) as
/// PyTorch's kernel does, as torch.nn.functional.logsigmoid.
Tensor logsigmoid(const Tensor &input);
/// x / (1 + |x|), as torch.nn.functional.softsign.
Tensor softsign(const Tensor &input);
/// x − tanh(x), as torch.nn.functional.tanhshrink.
Tensor tanhshrink(const Tensor &input);
/// 0 where |x| ≤ lambd, x elsewhere, as torch.nn.functional.hardshrink.
Tensor hardshrink(const Tensor &input, double lambd = 0.5);
/// x − lambd above lambd, x + lambd below −lambd, 0 between, as
/// torch.nn.functional.softshrink (NaN gives 0, as in PyTorch 1.13).
Tensor softshrink(const Tensor &input, double lambd = 0.5);
/// `value` where x ≤ threshold, x elsewhere, as
/// torch.nn.functional.threshold.
Tensor threshold(const Tensor &input, double threshold, double value);
/// The first half of `dim` times the sigmoid of the second, as
/// torch.nn.functional.glu; `dim`'s size must be even.
Tensor glu(const Tensor &input, int64_t dim = -1);
/// x for x > 0, weight · x otherwise, with one weight per channel (dim 1)
/// or one for all (weight of 1 element), as torch.nn.functional.prelu.
Tensor prelu(const Tensor &input, const Tensor &weight);

/// exp(x) / Σ exp(x) along `dim` (negative counts from the end).
Tensor softmax(const Tensor &input, int64_t dim);
Tensor log_softmax(const Tensor &input, int64_t dim);
/// softmax(−x) along `dim`, as torch.nn.functional.softmin.
Tensor softmin(const Tensor &input, int64_t dim);

} // namespace nn::functional

#endif // NN_FUNCTIONAL_ACTIVATION_H
