//===- NNLossOps.td - nn loss functions --------------------*- tablegen -*-===//
//
// Operations of the nn dialect: loss functions. Included by NNOps.td; C++
// (result-type inference, which is the verifier) in ir/lib/LossOps.cpp.
//
// Each loss is one op with PyTorch's `reduction` (none, mean, sum): `none`
// gives the per-element loss, the others a scalar. cross_entropy is not an
// op: the frontend records it as log_softmax followed by nll_loss, as
// PyTorch decomposes it.
//
//===----------------------------------------------------------------------===//
#ifndef NN_LOSS_OPS_TD
#define NN_LOSS_OPS_TD

include "nn/IR/NNOpBase.td"

/// torch.nn's `reduction` argument.
def NN_LossReduction : I32EnumAttr<"LossReduction", "reduction of a loss", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"sum", 2>
  ]> {
  let cppNamespace = "::mlir::nn";
  let genSpecializedAttr = 0;
}

def NN_LossReductionAttr
    : EnumAttr<NN_Dialect, NN_LossReduction, "loss_reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def NN_NllLossOp : NN_Op<"nll_loss", [Pure, InferTypeOpAdaptor]> {
  let summary = "Negative log-likelihood loss, as torch.nn.functional.nll_loss";
  let description = [{
    `input` holds log-probabilities `[N, C, d1, ...]` (or `[C]` for one
    sample), `target` the class indices (i64) `[N, d1, ...]` (or a scalar).
    Element i loses -weight[t_i] · input[i, t_i] (weight 1 without the
    optional `[C]` `weight`); elements whose target is `ignore_index` lose 0
    and weigh 0. `mean` divides the sum by the total weight of the elements
    not ignored (NaN when every element is ignored, as in PyTorch).

    Targets outside [0, C) other than `ignore_index` are not checked when the
    compiled model runs (PyTorch raises); they count as ignored.

    ```mlir
    %l = nn.nll_loss %x, %t weight %w reduction <mean> ignore_index -100
        : (tensor<4x5xf32>, tensor<4xi64>, tensor<5xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, RankedTensorOf<[I64]>:$target,
                       Optional<NN_FloatTensor>:$weight,
                       NN_LossReductionAttr:$reduction,
                       I64Attr:$ignore_index);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $target (`weight` $weight^)? `reduction` $reduction
    `ignore_index` $ignore_index attr-dict `:` functional-type(operands, results)
  }];
}

/// Losses of two same-shaped float tensors that reduce a pointwise function
/// of input - target.
class NN_PointwiseLossOp<string mnemonic, string formula>
    : NN_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = formula # ", as torch.nn.functional." # mnemonic;
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$target,
                       NN_LossReductionAttr:$reduction);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $target `reduction` $reduction attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::nn::detail::inferPointwiseLoss(
          loc, "}] # mnemonic # [{", adaptor.getInput(), adaptor.getTarget(),
          adaptor.getReduction(), types);
    }
  }];
}

def NN_MseLossOp : NN_PointwiseLossOp<"mse_loss", "(input - target)²"> {
  let description = [{
    The squared difference of two tensors of one shape (PyTorch's
    broadcasting of mismatched shapes, which it warns about, is refused),
    per element (`none`), summed or averaged.

    ```mlir
    %l = nn.mse_loss %x, %y reduction <mean>
        : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<f32>
    ```
  }];
}

def NN_L1LossOp : NN_PointwiseLossOp<"l1_loss", "|input - target|"> {
  let description = [{
    The absolute difference of two tensors of one shape, per element
    (`none`), summed or averaged.

    ```mlir
    %l = nn.l1_loss %x, %y reduction <none>
        : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    ```
  }];
}

#endif // NN_LOSS_OPS_TD
