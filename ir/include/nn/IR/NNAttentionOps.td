//===- NNAttentionOps.td - nn attention ops ----------------*- tablegen -*-===//
//
// Operations of the nn dialect: attention. Included by NNOps.td; C++
// (verifiers, type inference) in ir/lib/AttentionOps.cpp.
//
// Attention is one op so that later passes (fusion, flash-style tiling) see
// it as a unit; convert-nn-to-linalg decomposes it into batched matmuls and
// a max-subtracted softmax.
//
//===----------------------------------------------------------------------===//
#ifndef NN_ATTENTION_OPS_TD
#define NN_ATTENTION_OPS_TD

include "nn/IR/NNOpBase.td"

def NN_ScaledDotProductAttentionOp : NN_Op<"scaled_dot_product_attention",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "softmax(q·kᵀ·scale + mask)·v, as torch.nn.functional.scaled_dot_product_attention";
  let description = [{
    `query` is `[..., L, E]`, `key` `[..., S, E]`, `value` `[..., S, Ev]`;
    their batch dims `...` broadcast against each other and the result is
    `[..., L, Ev]`:

        attn = softmax(query · keyᵀ · scale + bias, dim = -1) · value

    `scale` defaults to 1/√E. The optional `attn_mask` broadcasts to
    `[..., L, S]` (without growing the batch dims): an `i1` mask says which
    positions take part (true attends, false gets -inf), a float mask (of the
    operands' element type) is added. `causal` masks the upper triangle
    (key position s > query position l, aligned at the top left as PyTorch
    does for L ≠ S) and excludes `attn_mask`, as in PyTorch. A query row
    that attends to nothing gives NaN, as PyTorch's math kernel does.

    With `dropout_p` > 0 the attention weights go through dropout before
    the product with `value`, drawing from the generator state `rng` exactly
    as `nn.dropout` does (element i of the weights `[..., L, S]`, row-major,
    uses counter base + `offset` + i), so a dropout written out by hand after
    a softmax gives the same mask.

    ```mlir
    %o = nn.scaled_dot_product_attention %q, %k, %v mask %m
        : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<5x7xi1>)
        -> tensor<2x4x5x3xf32>
    %c = nn.scaled_dot_product_attention %q, %k, %v causal scale 1.250000e-01
        : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>) -> tensor<2x4x5x3xf32>
    %d = nn.scaled_dot_product_attention %q, %k, %v rng %rng
        {dropout_p = 1.000000e-01 : f64, offset = 0 : i64}
        : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<2xi64>)
        -> tensor<2x4x5x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$query, NN_FloatTensor:$key,
                       NN_FloatTensor:$value,
                       Optional<RankedTensorOf<[I1, F16, BF16, F32, F64]>>:$attn_mask,
                       Optional<NN_RngState>:$rng,
                       UnitAttr:$is_causal, OptionalAttr<F64Attr>:$scale,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       DefaultValuedAttr<I64Attr, "0">:$offset);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $attn_mask^)? (`causal` $is_causal^)?
    (`scale` $scale^)? (`rng` $rng^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `scale`, or 1/√E when absent.
    double getScaleOrDefault();
    /// Whether the attention weights go through dropout.
    bool hasDropout() { return getDropoutP().convertToDouble() > 0.0; }
  }];
}

#endif // NN_ATTENTION_OPS_TD
