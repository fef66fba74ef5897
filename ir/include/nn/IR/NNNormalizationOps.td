//===- NNNormalizationOps.td - nn normalization and reductions -*- tablegen -*-===//
//
// Operations of the nn dialect: normalization and reductions. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/NormalizationOps.cpp.
//
// Reductions take their dims as written in PyTorch (negative dims count from
// the end; an empty list reduces every dimension). Normalizations are single
// ops so later passes (fusion, batch-norm folding) see them as units; they
// lower to reductions plus elementwise loops.
//
//===----------------------------------------------------------------------===//
#ifndef NN_NORMALIZATION_OPS_TD
#define NN_NORMALIZATION_OPS_TD

include "nn/IR/NNOpBase.td"
include "mlir/IR/SymbolInterfaces.td"

/// Element types sum/amax/amin accept: floats and signed integers.
def NN_NumericTensor : RankedTensorOf<[F16, BF16, F32, F64, I32, I64]>;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Reductions over a list of dims with keepdim; the result keeps the input's
/// element type.
class NN_ReduceOp<string mnemonic, string torchName, Type tensorType,
                  list<Trait> traits = []>
    : NN_Op<mnemonic, traits # [Pure, InferTypeOpAdaptor]> {
  let summary = "Reduction over dims, as torch." # torchName;
  let arguments = (ins tensorType:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs tensorType:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def NN_SumOp : NN_ReduceOp<"sum", "sum", NN_NumericTensor> {
  let description = [{
    Sum over `dims` (all dims when empty); `keepdim` keeps them as size 1.
    Integer sums wrap in the element type (PyTorch widens int32 to int64;
    nn keeps the type).

    ```mlir
    %s = nn.sum %x dims [0, -1] keepdim : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
    ```
  }];
}

def NN_MeanOp : NN_ReduceOp<"mean", "mean", NN_FloatTensor> {
  let description = [{
    Arithmetic mean over `dims` (all dims when empty).

    ```mlir
    %m = nn.mean %x dims [1] : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
    ```
  }];
}

def NN_AmaxOp : NN_ReduceOp<"amax", "amax", NN_NumericTensor> {
  let description = [{
    Maximum over `dims` (all dims when empty); NaN propagates.

    ```mlir
    %m = nn.amax %x dims [1] : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
}

def NN_AminOp : NN_ReduceOp<"amin", "amin", NN_NumericTensor> {
  let description = [{
    Minimum over `dims` (all dims when empty); NaN propagates.

    ```mlir
    %m = nn.amin %x dims [0] keepdim : (tensor<2x3xf32>) -> tensor<1x3xf32>
    ```
  }];
}

def NN_VarOp : NN_Op<"var", [Pure, InferTypeOpAdaptor]> {
  let summary = "Variance over dims, as torch.var";
  let description = [{
    sum((x - mean)²) / max(0, N - correction) over `dims` (all dims when
    empty), N the number of reduced elements: `correction = 1` is the unbiased
    (Bessel-corrected) estimate torch.var computes by default, 0 the biased
    one normalization uses.

    ```mlir
    %v = nn.var %x dims [1] correction = 1 keepdim : (tensor<2x3xf32>) -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       I64Attr:$correction, UnitAttr:$keepdim);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims `correction` `=` $correction (`keepdim` $keepdim^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

/// argmax / argmin: the index (i64) of the first extreme element along `dim`,
/// or of the flattened input when `dim` is absent.
class NN_ArgReduceOp<string mnemonic, string extreme>
    : NN_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "Index of the first " # extreme # ", as torch." # mnemonic;
  let arguments = (ins NN_NumericTensor:$input, OptionalAttr<I64Attr>:$dim,
                       UnitAttr:$keepdim);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input (`dim` `=` $dim^)? (`keepdim` $keepdim^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def NN_ArgmaxOp : NN_ArgReduceOp<"argmax", "maximum"> {
  let description = [{
    The first index of the maximum along `dim` (NaN counts as the maximum, as
    in PyTorch). Without `dim` the input is flattened and the result is a
    scalar (`keepdim` then gives all-ones dims).

    ```mlir
    %i = nn.argmax %x dim = 1 : (tensor<2x3xf32>) -> tensor<2xi64>
    %j = nn.argmax %x : (tensor<2x3xf32>) -> tensor<i64>
    ```
  }];
}

def NN_ArgminOp : NN_ArgReduceOp<"argmin", "minimum"> {
  let description = [{
    The first index of the minimum along `dim` (NaN counts as the minimum, as
    in PyTorch); without `dim`, of the flattened input.

    ```mlir
    %i = nn.argmin %x dim = 0 keepdim : (tensor<2x3xf32>) -> tensor<1x3xi64>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def NN_LayerNormOp : NN_Op<"layer_norm",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "Layer normalization, as torch.nn.functional.layer_norm";
  let description = [{
    Normalizes over the trailing dims `normalized_shape` with their mean and
    biased variance: (x - mean) / sqrt(var + eps) * weight + bias. `weight`
    and `bias` are optional and have shape `normalized_shape`.

    ```mlir
    %y = nn.layer_norm %x weight %w bias %b normalized_shape [16] eps 1.000000e-05
        : (tensor<2x5x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x5x16xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, Optional<NN_FloatTensor>:$weight,
                       Optional<NN_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$normalized_shape, F64Attr:$eps);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `normalized_shape`
    $normalized_shape `eps` $eps attr-dict `:` functional-type(operands, results)
  }];
}

def NN_GroupNormOp : NN_Op<"group_norm",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "Group normalization, as torch.nn.functional.group_norm";
  let description = [{
    `input` is `[N, C, *]`; its C channels are split into `num_groups` groups
    and each (sample, group) is normalized with its mean and biased variance,
    then scaled by the per-channel `weight` and shifted by `bias` (both `[C]`,
    optional).

    ```mlir
    %y = nn.group_norm %x weight %w bias %b groups 2 eps 1.000000e-05
        : (tensor<2x6x7xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x7xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, Optional<NN_FloatTensor>:$weight,
                       Optional<NN_FloatTensor>:$bias, I64Attr:$num_groups,
                       F64Attr:$eps);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `groups` $num_groups
    `eps` $eps attr-dict `:` functional-type(operands, results)
  }];
}

def NN_BatchNormOp : NN_Op<"batch_norm",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "Batch normalization with given statistics, as torch.nn.functional.batch_norm";
  let description = [{
    `input` is `[N, C, *]`; `mean` and `var` are `[C]` (the running statistics
    in evaluation, or batch statistics computed with nn.mean / nn.var
    correction 0 in training without running statistics):
    (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c]. `weight` and
    `bias` are optional `[C]`.

    ```mlir
    %y = nn.batch_norm %x, %m, %v weight %w bias %b eps 1.000000e-05
        : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$mean,
                       NN_FloatTensor:$var, Optional<NN_FloatTensor>:$weight,
                       Optional<NN_FloatTensor>:$bias, F64Attr:$eps);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $mean `,` $var (`weight` $weight^)? (`bias` $bias^)?
    `eps` $eps attr-dict `:` functional-type(operands, results)
  }];
}

def NN_BatchNormTrainingOp : NN_Op<"batch_norm_training",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "Training-mode batch normalization and its running-statistics update";
  let description = [{
    Normalizes `input` (`[N, C, *]`) with the batch mean and biased variance
    over every dim but C, and returns, beside the result, the updated running
    statistics as PyTorch computes them:
    `new = (1 - f) * running + f * batch`, with the unbiased batch variance
    for `running_var`. Given `num_batches_tracked` (an i64 scalar), the op
    also returns it incremented by one. The factor f is `momentum`, or, when
    `momentum` is absent (PyTorch's momentum=None, a cumulative average),
    1 / (num_batches_tracked + 1). The caller writes the new values back with
    nn.store.

    ```mlir
    %y, %rm, %rv = nn.batch_norm_training %x, %m, %v weight %w bias %b
        eps 1.000000e-05 momentum 1.000000e-01
        : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
        -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>)
    %y2, %rm2, %rv2, %n2 = nn.batch_norm_training %x, %m, %v
        num_batches_tracked %n eps 1.000000e-05
        : (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
        -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i64>)
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$running_mean,
                       NN_FloatTensor:$running_var,
                       Optional<NN_FloatTensor>:$weight,
                       Optional<NN_FloatTensor>:$bias,
                       Optional<RankedTensorOf<[I64]>>:$num_batches_tracked,
                       F64Attr:$eps, OptionalAttr<F64Attr>:$momentum);
  let results = (outs NN_FloatTensor:$result, NN_FloatTensor:$new_running_mean,
                      NN_FloatTensor:$new_running_var,
                      Optional<RankedTensorOf<[I64]>>:$new_num_batches_tracked);
  let assemblyFormat = [{
    $input `,` $running_mean `,` $running_var (`weight` $weight^)?
    (`bias` $bias^)? (`num_batches_tracked` $num_batches_tracked^)?
    `eps` $eps (`momentum` $momentum^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Buffer writes
//===----------------------------------------------------------------------===//

def NN_StoreOp : NN_Op<"store", [MemoryEffects<[MemWrite<NN_StateResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Writes a buffer or parameter (running statistics, an update)";
  let description = [{
    Sets the buffer or parameter `name` to `value` for the next call: what
    a forward assigns to a module buffer in place (BatchNorm's running
    statistics in training), or what a compiled training step's optimizer
    update writes into a parameter and its own state. It writes the state resource, so nn.load on either side of it
    is never merged by CSE. Later reads in the same function use `value` directly; the
    type must be the declared one. nn-lower-state-to-arguments turns it into
    a write into the buffer's argument.

    ```mlir
    nn.store @"bn.running_mean", %m : tensor<32xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name, AnyStaticShapeTensor:$value);
  let assemblyFormat = "$name `,` $value attr-dict `:` type($value)";
}

#endif // NN_NORMALIZATION_OPS_TD
