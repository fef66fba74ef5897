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
      reduced value.

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
    use of an `nn.conv` (1-D to 3-D, any groups) or of an `nn.linear` with a
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

def DecomposeConv3dPass : Pass<"nn-decompose-conv3d", "::mlir::func::FuncOp"> {
  let summary = "Compute each 3-D convolution as a sum of 2-D convolutions over depth slices";
  let description = [{
    A 3-D convolution is, for each depth offset `kd` of its kernel, a 2-D
    convolution of the input's depth slices `od * sd + kd * dd` (padded
    depth) with the kernel's slice `w[:, :, kd]`, summed over `kd`:

        y[n, :, od] = Σ_kd conv2d(x[n, :, od·sd + kd·dd - pd], w[:, :, kd])

    With the input laid out `[N, D', C, H, W]` (its depth zero-padded, then
    permuted once), the slices of one `kd`, every `sd`-th, are the `N · OD`
    images of one 2-D convolution. The pass emits those `KD` convolutions
    (height and width keep their stride, padding and dilation; groups are
    unchanged; the first carries the bias), their sum, and one permute back
    to `[N, O, OD, OH, OW]`. The 2-D convolutions then take the CPU
    backend's convolution kernels and nn-fuse folds each `add` into the
    epilogue of the convolution before it, where the 3-D convolution alone
    would lower to generated loops (linalg.conv_3d_ncdhw_fcdhw), about 15×
    slower on W10 of bench/.

    It runs in nn-optimize after nn-fold-batchnorm (which folds a
    BatchNorm3d into the 3-D convolution first) and before nn-fuse.
    Convolutions with dynamic shapes are left alone.

    Before:
    ```mlir
    %y = nn.conv %x, %w stride [1, 1, 1] padding [1, 0, 0] dilation [1, 1, 1] groups 1
        : (tensor<1x2x4x5x5xf32>, tensor<3x2x2x1x1xf32>) -> tensor<1x3x5x5x5xf32>
    ```
    After (the zero constants and the second depth offset elided):
    ```mlir
    %p = nn.permute %x [0, 2, 1, 3, 4] : (tensor<1x2x4x5x5xf32>) -> tensor<1x4x2x5x5xf32>
    %c = nn.cat %z0, %p, %z1 dim 1 : (...) -> tensor<1x6x2x5x5xf32>
    %s0 = nn.slice %c dim 1 [0 : 5 : 1] : (...) -> tensor<1x5x2x5x5xf32>
    %i0 = nn.reshape %s0 [5, 2, 5, 5] : (...) -> tensor<5x2x5x5xf32>
    %w0 = nn.slice %w dim 2 [0 : 1 : 1] : (...) -> tensor<3x2x1x1x1xf32>
    %k0 = nn.reshape %w0 [3, 2, 1, 1] : (...) -> tensor<3x2x1x1xf32>
    %y0 = nn.conv %i0, %k0 stride [1, 1] padding [0, 0] dilation [1, 1] groups 1
        : (tensor<5x2x5x5xf32>, tensor<3x2x1x1xf32>) -> tensor<5x3x5x5xf32>
    ...
    %sum = nn.add %y0, %y1 : (...) -> tensor<5x3x5x5xf32>
    %r = nn.reshape %sum [1, 5, 3, 5, 5] : (...) -> tensor<1x5x3x5x5xf32>
    %y = nn.permute %r [0, 2, 1, 3, 4] : (...) -> tensor<1x3x5x5x5xf32>
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

def FoldScalarMulPass : Pass<"nn-fold-scalar-mul", "::mlir::func::FuncOp"> {
  let summary = "Fold multiplications by a constant scalar into weights or the attention scale";
  let description = [{
    A multiplication (or division) by a constant scalar next to a linear map
    moves onto the operand where it costs least:

    * `linear(x, W, b) * s` → `linear(x, W * s, b * s)`
    * `linear(x * s, W, b)` → `linear(x, W * s, b)`
    * `scaled_dot_product_attention(q * s, k, v) scale σ`
      → `scaled_dot_product_attention(q, k, v) scale σ·s` (likewise for `k`,
      since q·(k·s)ᵀ = s·(q·kᵀ)); `/ s` works as `· 1/s`.

    Here `s` is an `arith.constant` whose elements are all one value (the
    tracer spells `x * 1.5` with a rank-0 constant) and which does not
    broadcast the other operand to a larger shape.

    The cost rule: the weights are not constants here (they are bound when
    the artifact is loaded), so `W * s` is computed in the graph, once per
    call, like nn-fold-batchnorm's prologue. Folding into the weights pays
    only when the multiply it removes touches more elements than the one it
    adds: `numel(linear result) ≥ numel(W) + numel(b)` for the first form,
    `numel(x) ≥ numel(W)` for the second. The attention form always pays: it
    removes a pass over `q` (or `k`) and changes only an attribute, since the
    lowering applies `scale` inside the softmax's loop nest anyway.

    The opposite direction — folding an attention's `scale` into the query
    projection's weights — is deliberately not done: with the scale applied
    inside the softmax loop nest for free, it would only add work.

    Left alone: a multiply whose linear (or scaled value) has other users
    (they need the unscaled value), a linear applying a fused activation
    (act(z)·s ≠ act(z·s) in general), a non-constant or non-uniform factor,
    integer tensors, and anything inside an `nn.fused` group. Results change
    only by float rounding (the product is formed in a different order).

    Before:
    ```mlir
    %s = arith.constant dense<5.000000e-01> : tensor<f32>
    %y = nn.linear %x, %w, %b : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
    %z = nn.mul %y, %s : (tensor<64x16xf32>, tensor<f32>) -> tensor<64x16xf32>
    ```
    After:
    ```mlir
    %s = arith.constant dense<5.000000e-01> : tensor<f32>
    %0 = nn.mul %w, %s : (tensor<16x32xf32>, tensor<f32>) -> tensor<16x32xf32>
    %1 = nn.mul %b, %s : (tensor<16xf32>, tensor<f32>) -> tensor<16xf32>
    %z = nn.linear %x, %0, %1 : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<64x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::nn::NNDialect"];
}

def MergeLinearsPass : Pass<"nn-merge-linears", "::mlir::func::FuncOp"> {
  let summary = "Merge linears that read the same input into one (q/k/v projections)";
  let description = [{
    Several `nn.linear`s of one input — the q, k and v projections of an
    attention written with three Linear modules, or the heads of a
    multi-head model — become one linear on the concatenated weights (and
    biases), whose result is cut back into the original ones with
    `nn.slice` along the last dimension:

        [y1 | y2 | y3] = x · [W1; W2; W3]ᵀ + [b1; b2; b3]

    so one matrix product runs with a wider N: the input is read and packed
    once instead of once per projection, and the kernel gets a larger,
    better parallelized problem.

    The cost rule: the weights are external, so their concatenation is an
    `nn.cat` in the graph, copying `ΣNᵢ·K` elements per call; merging reads
    `(n−1)·M·K` fewer input elements (`M` rows, `n` linears). The linears are
    merged when `(n−1)·M ≥ ΣNᵢ`, i.e. the input traffic saved is at least
    the weight traffic added. (With the weights bound at compile time the
    concatenation becomes a constant and the rule is moot.)

    Merged together: linears of the same input in the same block whose
    weights (and biases) are defined before the first of them, with the same
    activation, all with or all without a bias, and of one element type.
    Left alone: a lone linear, linears inside `nn.fused` groups, linears
    whose weight is computed after the first one (moving that computation is
    not this pass's business), and a linear whose only user is a pointwise
    op: nn-fuse makes that op its epilogue, which a sliced result would lose.

    Before:
    ```mlir
    %q = nn.linear %x, %wq, %bq : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
    %k = nn.linear %x, %wk, %bk : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
    ```
    After:
    ```mlir
    %w = nn.cat %wq, %wk dim 0 : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<64x32xf32>
    %b = nn.cat %bq, %bk dim 0 : (tensor<32xf32>, tensor<32xf32>) -> tensor<64xf32>
    %y = nn.linear %x, %w, %b : (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<64x64xf32>
    %q = nn.slice %y dim 1 [0 : 32 : 1] : (tensor<64x64xf32>) -> tensor<64x32xf32>
    %k = nn.slice %y dim 1 [32 : 64 : 1] : (tensor<64x64xf32>) -> tensor<64x32xf32>
    ```

    Pre-transposing linear weights once (storing Wᵀ) is not done: the CPU
    lowering passes the weight to the GEMM micro-kernel by pointer and
    strides, and the kernel packs its B operand into register-tile panels on
    every call whatever the layout, so a transposed copy would save nothing.
  }];
  let dependentDialects = ["::mlir::nn::NNDialect"];
}

def AutodiffPass : Pass<"nn-autodiff", "::mlir::ModuleOp"> {
  let summary = "Append the gradients of the trainable parameters to a "
                "function whose first result is a loss";
  let description = [{
    Reverse-mode differentiation of a traced function (by default
    `@forward`, a model's forward composed with its loss). Its first result
    must be a scalar floating-point loss. After the existing results come
    the gradients of the loss with respect to every trainable parameter it
    depends on, in declaration order, each marked
    `{nn.name = "grad.<key>", nn.grad = "<key>"}`; as in PyTorch, a frozen
    parameter or one the loss does not depend on gets no result (None, not
    zeros), and a parameter read several times gets the sum. With
    `inputs=true` the gradients of the floating-point arguments follow,
    named after them (`grad.input.0`, or `grad.<nn.name>`).

    Each op's gradient comes from its vector-Jacobian product rule, kept
    beside its op family in passes/lib/Autodiff/ (nn/Transforms/Autodiff.h);
    an op the loss depends on without a rule is an error at the op, naming
    it (and, through its location, its module path). Backward is ordinary nn
    IR emitted before the return: it reads forward's values where a rule
    needs them (they are saved, kept alive until backward uses them) and
    recomputes nothing; it then goes through nn-optimize and the same code
    generation as forward. Train-mode buffer updates (nn.store) stay as they
    are.

    `nn.gradient_hook` ops are where the frontend's backward hooks run; the
    frontend differentiates its traces itself (nn::TracedModule::
    differentiate) and this pass, which has no hooks to run, refuses them.

    Before:
    ```mlir
    nn.parameter @w : tensor<3xf32>
    func.func @forward(%x: tensor<3xf32>) -> tensor<f32> {
      %w = nn.load @w : tensor<3xf32>
      %y = nn.mul %x, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %l = nn.sum %y dims [] : (tensor<3xf32>) -> tensor<f32>
      return %l : tensor<f32>
    }
    ```
    After (up to constants): the loss, then dloss/dw = x · 1.
    ```mlir
    func.func @forward(%x: tensor<3xf32>) -> (tensor<f32>,
        tensor<3xf32> {nn.grad = "w", nn.name = "grad.w"}) {
      ...
      %one = arith.constant dense<1.0> : tensor<f32>
      %s = nn.reshape %one [] ...
      %e = nn.expand %s [3] : (tensor<f32>) -> tensor<3xf32>
      %dw = nn.mul %e, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      return %l, %dw : tensor<f32>, tensor<3xf32>
    }
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The function to differentiate (its first result is the loss)">,
    Option<"inputs", "inputs", "bool", /*default=*/"false",
           "Also append the gradients of its floating-point arguments, as "
           "grad.input.0, ... (after the parameters')">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // NN_TRANSFORMS_PASSES_TD
