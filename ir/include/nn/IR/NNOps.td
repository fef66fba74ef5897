//===- NNOps.td - nn dialect operations --------------------*- tablegen -*-===//
//
// Operations of the nn dialect: state, dense ops and the first elementwise
// ops here, each further family in its own NN<Family>Ops.td. Shapes are static; every op infers its
// result type, and the inference is its verifier: a mismatch is reported with
// both operands' shapes.
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPS_TD
#define NN_OPS_TD

include "nn/IR/NNOpBase.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// Parameters and buffers
//===----------------------------------------------------------------------===//

class NN_StateOp<string mnemonic, list<Trait> traits = []>
    : NN_Op<mnemonic, traits # [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let hasVerifier = 1;
}

def NN_ParameterOp : NN_StateOp<"parameter"> {
  let summary = "A trainable tensor of the module tree";
  let description = [{
    Declares a parameter under its state_dict key. Its value is bound when the
    compiled model is loaded (from a safetensors file) and read in functions
    with `nn.load`. `frozen` marks a parameter with `requires_grad=False`.

    ```mlir
    nn.parameter @"fc1.weight" : tensor<256x784xf32>
    nn.parameter @"embed.weight" : tensor<100x16xf32> frozen
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyStaticShapeTensor>:$type,
                       UnitAttr:$frozen);
  let assemblyFormat = "$sym_name `:` $type (`frozen` $frozen^)? attr-dict";
}

def NN_BufferOp : NN_StateOp<"buffer"> {
  let summary = "A non-trainable tensor of the module tree";
  let description = [{
    Declares a buffer (running statistics, masks) under its state_dict key.
    Only `persistent` buffers appear in the state_dict; the others are still
    bound when the model is loaded.

    ```mlir
    nn.buffer @"bn.running_mean" : tensor<32xf32> persistent
    nn.buffer @"attn.mask" : tensor<8x8xi1>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyStaticShapeTensor>:$type,
                       UnitAttr:$persistent);
  let assemblyFormat = "$sym_name `:` $type (`persistent` $persistent^)? attr-dict";
}

def NN_LoadOp : NN_Op<"load", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads a parameter or buffer";
  let description = [{
    The current value of the parameter or buffer `name`; the result type is
    the declared type.

    ```mlir
    %w = nn.load @"fc1.weight" : tensor<256x784xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

def NN_LinearOp : NN_Op<"linear", [Pure, InferTypeOpAdaptor]> {
  let summary = "y = act(x · weightᵀ + bias), as torch.nn.functional.linear";
  let description = [{
    `input` is `[..., in]`, `weight` is `[out, in]`, the optional `bias` is
    `[out]`; the result is `[..., out]`. `activation` is applied to the result
    (`none` by default); the fusion pass sets it when a linear feeds an
    activation.

    ```mlir
    %y = nn.linear %x, %w, %b activation<relu>
        : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       Optional<NN_FloatTensor>:$bias,
                       DefaultValuedAttr<NN_ActivationAttr,
                         "::mlir::nn::Activation::none">:$activation);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`activation` `` $activation^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def NN_MatmulOp : NN_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "Matrix product with batch broadcasting, as torch.matmul";
  let description = [{
    Both operands have rank ≥ 2: `[..., n, k]` times `[..., k, m]` gives
    `[..., n, m]`, the leading (batch) dimensions broadcast against each other.

    ```mlir
    %c = nn.matmul %a, %b : (tensor<8x4x16xf32>, tensor<16x32xf32>) -> tensor<8x4x32xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$lhs, NN_FloatTensor:$rhs);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def NN_AddOp : NN_BroadcastBinaryOp<"add", "add"> {
  let description = [{
    ```mlir
    %z = nn.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def NN_ReluOp : NN_UnaryFloatOp<"relu", "relu"> {
  let description = [{
    max(x, 0); NaN stays NaN, as in PyTorch.

    ```mlir
    %y = nn.relu %x : tensor<2x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Regularization
//===----------------------------------------------------------------------===//

def NN_DropoutOp : NN_Op<"dropout", [SameOperandsAndResultType,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Zeroes elements with probability p in training, as torch.nn.functional.dropout";
  let description = [{
    In training, each element is zeroed with probability `p` and the others
    scaled by 1/(1-p). In evaluation (or with p = 0) it is the identity and
    folds away. Only the training form has an effect (it draws random
    numbers), so CSE never merges two training dropouts.

    The random numbers are counter-based and stateless: element i (in
    row-major order) keeps its value when the first word of
    Philox4x32-10(key = `seed`, counter = `offset` + i), shifted right by 8,
    is below round((1-p)·2²⁴). The tracer takes `seed` from the seeded
    default generator and gives each dropout call of a trace its own
    `offset` range, so a seed reproduces every mask, and two calls never
    share one. The masks are not PyTorch's (its generator differs).

    ```mlir
    %y = nn.dropout %x {p = 1.000000e-01 : f64} : tensor<2x256xf32>
    %z = nn.dropout %x {p = 5.000000e-01 : f64, training, seed = 42 : i64, offset = 512 : i64}
        : tensor<2x256xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, F64Attr:$p, UnitAttr:$training,
                       DefaultValuedAttr<I64Attr, "0">:$seed,
                       DefaultValuedAttr<I64Attr, "0">:$offset);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// True when the op changes its input (training with p > 0).
    bool isActive() { return getTraining() && getP().convertToDouble() > 0.0; }
  }];
}

//===----------------------------------------------------------------------===//
// Op families, one file each
//===----------------------------------------------------------------------===//

include "nn/IR/NNActivationOps.td"
include "nn/IR/NNElementwiseOps.td"
include "nn/IR/NNConvolutionOps.td"
include "nn/IR/NNNormalizationOps.td"
include "nn/IR/NNShapeOps.td"
include "nn/IR/NNLossOps.td"
include "nn/IR/NNAttentionOps.td"

#endif // NN_OPS_TD
