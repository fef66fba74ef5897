//===- Attention.cpp - nn::functional: attention --------------------------===//
//
// Records the ops of nn/Functional/Attention.h into the current trace.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Attention.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

#include <cmath>

namespace nn::functional {

using detail::TraceContext;

Tensor scaled_dot_product_attention(
    const Tensor &query, const Tensor &key, const Tensor &value,
    const ScaledDotProductAttentionFuncOptions &options) {
  constexpr const char *name = "scaled_dot_product_attention";
  TraceContext &t = TraceContext::current(name);
  if (options.dropout_p() != 0.0)
    t.fail(std::string(name) +
           ": dropout_p must be 0 (attention dropout is "
           "not supported yet), got " +
           std::to_string(options.dropout_p()));
  mlir::Value q = t.valueOf(query, name, "query");
  mlir::Value k = t.valueOf(key, name, "key");
  mlir::Value v = t.valueOf(value, name, "value");
  mlir::Value mask = options.attn_mask().defined()
                         ? t.valueOf(options.attn_mask(), name, "attn_mask")
                         : mlir::Value();
  mlir::FloatAttr scale = options.scale()
                              ? t.builder.getF64FloatAttr(*options.scale())
                              : mlir::FloatAttr();
  return t.emit<mlir::nn::ScaledDotProductAttentionOp>(
      q.getType(), q, k, v, mask,
      options.is_causal() ? t.builder.getUnitAttr() : mlir::UnitAttr(), scale);
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
