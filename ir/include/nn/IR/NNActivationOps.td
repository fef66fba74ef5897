//===- NNActivationOps.td - nn activation functions -*- tablegen -*-===//
//
// Operations of the nn dialect: activation functions. Included by NNOps.td; C++
// (verifiers, type inference, folders) in ir/lib/ActivationOps.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NN_ACTIVATION_OPS_TD
#define NN_ACTIVATION_OPS_TD

include "nn/IR/NNOpBase.td"

/// Softmax-like ops: normalize along `dim` (negative counts from the end).
class NN_SoftmaxLikeOp<string mnemonic, string torchName>
    : NN_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = torchName # " along one dimension, as torch.nn.functional." # torchName;
  let arguments = (ins NN_FloatTensor:$input, I64Attr:$dim);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input `,` `dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `dim` as written (I64Attr's getDim() reads it unsigned).
    int64_t getSignedDim() { return getDimAttr().getInt(); }
    /// `dim` in [0, rank).
    int64_t getNormalizedDim() {
      int64_t dim = getSignedDim();
      return dim < 0 ? dim + getType().getRank() : dim;
    }
  }];
}

def NN_SigmoidOp : NN_UnaryFloatOp<"sigmoid", "sigmoid"> {
  let description = [{
    1 / (1 + exp(-x)).

    ```mlir
    %y = nn.sigmoid %x : tensor<2x3xf32>
    ```
  }];
}

def NN_TanhOp : NN_UnaryFloatOp<"tanh", "tanh"> {
  let description = [{
    ```mlir
    %y = nn.tanh %x : tensor<2x3xf32>
    ```
  }];
}

def NN_SiluOp : NN_UnaryFloatOp<"silu", "silu"> {
  let description = [{
    x · sigmoid(x) (also called swish).

    ```mlir
    %y = nn.silu %x : tensor<2x3xf32>
    ```
  }];
}

def NN_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the Gaussian CDF", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"tanh", 1>
  ]> {
  let cppNamespace = "::mlir::nn";
  let genSpecializedAttr = 0;
}

def NN_GeluApproximationAttr
    : EnumAttr<NN_Dialect, NN_GeluApproximation, "gelu_approximation"> {
  let assemblyFormat = "`<` $value `>`";
}

def NN_GeluOp : NN_Op<"gelu", [Pure, SameOperandsAndResultType,
    NN_Pointwise]> {
  let summary = "Gaussian error linear unit, as torch.nn.functional.gelu";
  let description = [{
    x · Φ(x) with Φ the standard normal CDF, computed with erf
    (`approximate = none`, the default) or with PyTorch's tanh formula
    0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³))) (`approximate<tanh>`).

    ```mlir
    %y = nn.gelu %x : tensor<2x3xf32>
    %z = nn.gelu %x approximate<tanh> : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input,
                       DefaultValuedAttr<NN_GeluApproximationAttr,
                         "::mlir::nn::GeluApproximation::none">:$approximate);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat =
      "$input (`approximate` `` $approximate^)? attr-dict `:` type($result)";
}

def NN_LeakyReluOp : NN_Op<"leaky_relu", [Pure, SameOperandsAndResultType,
    NN_Pointwise]> {
  let summary = "max(x, 0) + slope · min(x, 0), as torch.nn.functional.leaky_relu";
  let description = [{
    ```mlir
    %y = nn.leaky_relu %x, slope = 1.000000e-02 : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, F64Attr:$negative_slope);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat =
      "$input `,` `slope` `=` $negative_slope attr-dict `:` type($result)";
}

def NN_ClampOp : NN_Op<"clamp", [Pure, SameOperandsAndResultType,
    NN_Pointwise]> {
  let summary = "Limits values to [min, max], as torch.clamp and hardtanh";
  let description = [{
    Either bound may be absent. NaN stays NaN. hardtanh(x, a, b) is
    clamp(x, a, b); relu6 is clamp(x, 0, 6).

    ```mlir
    %y = nn.clamp %x {max = 1.000000e+00 : f64, min = -1.000000e+00 : f64} : tensor<2x3xf32>
    %z = nn.clamp %x {min = 0.000000e+00 : f64} : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def NN_SoftmaxOp : NN_SoftmaxLikeOp<"softmax", "softmax"> {
  let description = [{
    exp(x - max) / Σ exp(x - max) along `dim`.

    ```mlir
    %y = nn.softmax %x, dim = -1 : tensor<2x3xf32>
    ```
  }];
}

def NN_LogSoftmaxOp : NN_SoftmaxLikeOp<"log_softmax", "log_softmax"> {
  let description = [{
    x - max - log Σ exp(x - max) along `dim`.

    ```mlir
    %y = nn.log_softmax %x, dim = 1 : tensor<2x3xf32>
    ```
  }];
}

#endif // NN_ACTIVATION_OPS_TD
