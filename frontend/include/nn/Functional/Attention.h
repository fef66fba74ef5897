//===- Attention.h - nn::functional: attention ------------------*- C++ -*-===//
//
// Part of nn/Functional.h; see there for the rules every functional op
// follows. Keyword arguments are a libtorch-style option struct:
//
//   F::scaled_dot_product_attention(q, k, v,
//       F::ScaledDotProductAttentionFuncOptions().attn_mask(mask).scale(0.5));
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_ATTENTION_H
#define NN_FUNCTIONAL_ATTENTION_H

#include "nn/Frontend/Arg.h"
#include "nn/Runtime/Tensor.h"

#include <optional>

namespace nn::functional {

struct ScaledDotProductAttentionFuncOptions {
  /// Broadcastable to [..., L, S]: bool (true attends) or float (added).
  NN_ARG(Tensor, attn_mask);
  /// Dropout on the attention weights, in [0, 1]; applied whenever > 0, as in
  /// PyTorch (modules pass 0 in eval). It draws from the same per-run
  /// generator as F::dropout.
  NN_ARG(double, dropout_p) = 0.0;
  /// Masks key positions after the query's (top-left aligned); excludes
  /// attn_mask.
  NN_ARG(bool, is_causal) = false;
  /// Defaults to 1/√E.
  NN_ARG(std::optional<double>, scale);
};

/// softmax(query·keyᵀ·scale + mask, -1)·value for query [..., L, E], key
/// [..., S, E], value [..., S, Ev] (batch dims broadcast) → [..., L, Ev], as
/// torch.nn.functional.scaled_dot_product_attention (PyTorch 2.x).
Tensor scaled_dot_product_attention(
    const Tensor &query, const Tensor &key, const Tensor &value,
    const ScaledDotProductAttentionFuncOptions &options = {});

/// torch.nn.functional._canonical_mask: a bool mask (true = masked out, as
/// MultiheadAttention's masks are) becomes the additive float mask of
/// `dtype`, -inf where true and 0 elsewhere; a float mask is returned as it
/// is (it must have `dtype`).
Tensor canonical_mask(const Tensor &mask, DType dtype);

} // namespace nn::functional

#endif // NN_FUNCTIONAL_ATTENTION_H
