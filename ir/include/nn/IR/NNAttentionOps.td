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
    [Pure, InferTypeOpAdaptor]> {
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
    that attends to nothing gives NaN, as PyTorch's math kernel does. There
    is no dropout: torch's `dropout_p` must be 0 (MultiheadAttention passes
    0 in eval).

    ```mlir
    %o = nn.scaled_dot_product_attention %q, %k, %v mask %m
        : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>, tensor<5x7xi1>)
        -> tensor<2x4x5x3xf32>
    %c = nn.scaled_dot_product_attention %q, %k, %v causal scale 1.250000e-01
        : (tensor<2x4x5x8xf32>, tensor<2x4x7x8xf32>, tensor<2x4x7x3xf32>) -> tensor<2x4x5x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$query, NN_FloatTensor:$key,
                       NN_FloatTensor:$value,
                       Optional<RankedTensorOf<[I1, F16, BF16, F32, F64]>>:$attn_mask,
                       UnitAttr:$is_causal, OptionalAttr<F64Attr>:$scale);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $attn_mask^)? (`causal` $is_causal^)?
    (`scale` $scale^)? attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// `scale`, or 1/√E when absent.
    double getScaleOrDefault();
  }];
}

#endif // NN_ATTENTION_OPS_TD
