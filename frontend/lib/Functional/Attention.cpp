//===- Attention.cpp - nn::functional: attention --------------------------===//
//
// Records the ops of nn/Functional/Attention.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Attention.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

#include <algorithm>
#include <cmath>

namespace nn::functional {

using detail::TraceContext;

/// The number of attention weights [batch..., L, S] of query [..., L, E],
/// key [..., S, E] and value [..., S, Ev], batch dims broadcast.
static int64_t attentionWeightCount(const Tensor &query, const Tensor &key,
                                    const Tensor &value) {
  int64_t count = query.shape().size() >= 2 && key.shape().size() >= 2
                      ? query.shape()[query.shape().size() - 2] *
                            key.shape()[key.shape().size() - 2]
                      : 0;
  for (size_t back = 3;; ++back) {
    int64_t dim = 1;
    bool any = false;
    for (const Tensor *t : {&query, &key, &value})
      if (t->shape().size() >= back) {
        dim = std::max(dim, t->shape()[t->shape().size() - back]);
        any = true;
      }
    if (!any)
      return count;
    count *= dim;
  }
}

Tensor scaled_dot_product_attention(
    const Tensor &query, const Tensor &key, const Tensor &value,
    const ScaledDotProductAttentionFuncOptions &options) {
  constexpr const char *name = "scaled_dot_product_attention";
  TraceContext &t = TraceContext::current(name);
  double p = options.dropout_p();
  if (!(p >= 0.0 && p <= 1.0))
    t.fail(std::string(name) + ": dropout_p must be in [0, 1], got " +
           std::to_string(p));
  mlir::Value q = t.valueOf(query, name, "query");
  mlir::Value k = t.valueOf(key, name, "key");
  mlir::Value v = t.valueOf(value, name, "value");
  mlir::Value mask = options.attn_mask().defined()
                         ? t.valueOf(options.attn_mask(), name, "attn_mask")
                         : mlir::Value();
  mlir::FloatAttr scale = options.scale()
                              ? t.builder.getF64FloatAttr(*options.scale())
                              : mlir::FloatAttr();
  // The dropped weights are [batch..., L, S], the batch dims of query, key
  // and value broadcast (the op's verifier reports shapes that do not).
  auto [rng, offset] =
      p > 0.0 ? t.nextRandomStream(attentionWeightCount(query, key, value))
              : std::pair<mlir::Value, int64_t>{};
  return t.emit<mlir::nn::ScaledDotProductAttentionOp>(
      q.getType(), q, k, v, mask, rng,
      options.is_causal() ? t.builder.getUnitAttr() : mlir::UnitAttr(), scale,
      t.builder.getF64FloatAttr(p), t.builder.getI64IntegerAttr(offset));
}

Tensor canonical_mask(const Tensor &mask, DType dtype) {
  constexpr const char *name = "canonical_mask";
  TraceContext &t = TraceContext::current(name);
  mlir::Value m = t.valueOf(mask, name, "mask");
  if (mask.dtype() != DType::boolean) {
    if (mask.dtype() != dtype)
      t.fail(std::string(name) +
             ": a float mask must have the attention's "
             "dtype " +
             std::string(dtype_name(dtype)) + ", got " +
             std::string(dtype_name(mask.dtype())));
    return mask;
  }
  mlir::Type element = detail::elementType(*t.builder.getContext(), dtype);
  mlir::Value masked = t.scalar(-INFINITY, element);
  mlir::Value kept = t.scalar(0.0, element);
  return t.emit<mlir::nn::WhereOp>(masked.getType(), m, masked, kept);
}

} // namespace nn::functional
