//===- Passes.td - nn → nn graph passes --------------------*- tablegen -*-===//
//
// Passes that rewrite the nn dialect into better nn. Each has a lit test
// named after its flag under tests/Transforms/.
//
//===----------------------------------------------------------------------===//
#ifndef NN_TRANSFORMS_PASSES_TD
#define NN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FusePass : Pass<"nn-fuse", "::mlir::func::FuncOp"> {
  let summary = "Group contractions and pointwise chains into nn.fused ops";
  let description = [{
    Fusion saves memory traffic: a value computed and consumed inside one
    loop nest never reaches memory. The cost rule, applied by one pattern to
    a fixpoint:

    * A **pointwise** op (elementwise with broadcasting: add, sub, mul, div,
      pow, maximum, minimum, neg, abs, exp, log, sqrt, rsqrt and the
      activations relu, leaky_relu, clamp/relu6/hardtanh, gelu, silu,
      sigmoid, tanh) absorbs the **producer** of one of its operands when
      that producer is a contraction (`nn.conv`, `nn.linear`, `nn.matmul`),
      a pointwise op, or an `nn.fused` group, so the consumer is applied on
      the producer's store as an epilogue.
    * Only when the consumer is the producer's **only user** and reads the
      value at its full shape (does not broadcast it up): a second user
      would need the value in memory anyway, and a broadcast consumer runs
      over a larger iteration space than the producer.
    * A group holds at most one contraction, first: when two operands
      qualify, the one whose group holds a contraction is absorbed.
    * Never across **reductions and normalizations** (softmax, layer_norm,
      group_norm, batch_norm, sum, mean...), whose consumers need the whole
      reduced value; and never ops already applying a fused activation
      (`nn.linear ... activation<relu>`).

    The result is `nn.fused`, whose body codegen lowers to the contraction's
    linalg op followed by one `linalg.generic` evaluating the whole epilogue.
    This covers conv + bias + activation, conv + residual add + relu,
    linear + bias + activation and chains of elementwise ops without a list
    of special cases.

    Before:
    ```mlir
    %c = nn.conv %x, %w, %b stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
        : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
    %s = nn.add %c, %x : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %y = nn.relu %s : tensor<1x8x6x6xf32>
    ```
    After:
    ```mlir
    %y = nn.fused (%x, %w, %b) : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>,
        tensor<8xf32>) -> tensor<1x8x6x6xf32> {
    ^bb0(%a: tensor<1x8x6x6xf32>, %k: tensor<8x8x3x3xf32>, %c: tensor<8xf32>):
      %0 = nn.conv %a, %k, %c stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
          : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
      %1 = nn.add %0, %a : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
      %2 = nn.relu %1 : tensor<1x8x6x6xf32>
      nn.yield %2 : tensor<1x8x6x6xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::nn::NNDialect"];
}

def FoldBatchNormPass : Pass<"nn-fold-batchnorm", "::mlir::func::FuncOp"> {
  let summary = "Fold evaluation-mode batch norm into the conv or linear before it";
  let description = [{
    `nn.batch_norm` (the evaluation form: given statistics, no running-stat
    update; `nn.batch_norm_training` is never touched) applied to the only
    use of an `nn.conv` (1-D or 2-D, any groups) or of an `nn.linear` with a
    `[N, C]` result becomes that op with

        s  = gamma / sqrt(var + eps)            (per output channel)
        w' = w * s   (s reshaped to [O, 1, ...], one factor per out-channel)
        b' = (b - mean) * s + beta              (b = 0 without a bias)

    since BN(conv(x, w, b)) = (conv(x, w) + b - mean) * s + beta
    = conv(x, w * s) + (b - mean) * s + beta: the conv is linear in its
    weight and each output channel only reads its own filter. Missing gamma
    and beta count as 1 and 0.

    Weights are not constants here: they are external `nn.parameter`
    symbols bound when the artifact is loaded. So the fold emits w' and b'
    as a small prologue in the graph, computed from `nn.load`s of the
    parameters and running statistics. It is loop-invariant: it depends on
    no input, costs O(|w|) once per call instead of a pass over every
    activation, and is exact up to float rounding (the product is rounded
    in a different order, so results match to about 1e-6 relative, not bit
    for bit). It becomes a compile-time constant once the weights are
    known at compile time: embedding the weights (binding `nn.parameter` to
    dense constants) lets canonicalization constant-fold the prologue, or a
    const-eval/hoisting pass can run it once at bind time.

    Left alone: a conv/linear whose result has other users (they need the
    unnormalized value), a linear with a fused activation or a result that
    is not `[N, C]`, and batch norm of anything else.

    Before:
    ```mlir
    %c = nn.conv %x, %w stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
        : (tensor<1x3x4x4xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x4x4xf32>
    %y = nn.batch_norm %c, %m, %v weight %g bias %b eps 1.000000e-05 : (...) -> tensor<1x8x4x4xf32>
    ```
    After:
    ```mlir
    %e = arith.constant dense<1.000000e-05> : tensor<f32>
    %0 = nn.add %v, %e : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    %1 = nn.sqrt %0 : tensor<8xf32>
    %s = nn.div %g, %1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %2 = nn.reshape %s [8, 1, 1, 1] : (tensor<8xf32>) -> tensor<8x1x1x1xf32>
    %w2 = nn.mul %w, %2 : (tensor<8x3x1x1xf32>, tensor<8x1x1x1xf32>) -> tensor<8x3x1x1xf32>
    %3 = nn.neg %m : tensor<8xf32>
    %4 = nn.mul %3, %s : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %b2 = nn.add %4, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %y = nn.conv %x, %w2, %b2 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
        : (tensor<1x3x4x4xf32>, tensor<8x3x1x1xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::nn::NNDialect",
                           "::mlir::arith::ArithDialect"];
}

def TieWeightsPass : Pass<"nn-tie-weights", "::mlir::ModuleOp"> {
  let summary = "Make the parameters of one tie group one symbol";
  let description = [{
    A tensor shared under several state_dict names (`decoder.weight =
    encoder.weight`) is traced as one `nn.parameter` per name, every later
    one `tied_to` the first. This pass erases the tied declarations, points
    their `nn.load`/`nn.store` uses at the group's root and records the
    erased names in the root's `aliases`. The compiled artifact then takes
    the tensor once while its description lists every name, and binding by
    any of them works.

    Rejected (with an error on the tied declaration): a tie to a symbol that
    is not declared, between a parameter and a buffer, between different
    types, or a cycle.

    Before:
    ```mlir
    nn.parameter @"encoder.weight" : tensor<16x16xf32>
    nn.parameter @"decoder.weight" : tensor<16x16xf32> tied_to @"encoder.weight"
    ... nn.load @"decoder.weight" : tensor<16x16xf32>
    ```
    After:
    ```mlir
    nn.parameter @"encoder.weight" : tensor<16x16xf32> aliases ["decoder.weight"]
    ... nn.load @"encoder.weight" : tensor<16x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::nn::NNDialect"];
}

#endif // NN_TRANSFORMS_PASSES_TD
