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
include "mlir/Interfaces/ControlFlowInterfaces.td"

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

    Tying: the tracer declares every state_dict name of a shared tensor, the
    later ones with `tied_to` naming the first; nn-tie-weights then keeps the
    first alone and lists the others in its `aliases`, the names the compiled
    artifact also binds it by.

    A `value` is embedded in the compiled artifact: loading binds the tensor
    by name when it is given and uses the embedded copy otherwise
    (`nn-compile --embed-weights`). State that a function writes is always
    bound, whatever its value says.

    ```mlir
    nn.parameter @"fc1.weight" : tensor<256x784xf32>
    nn.parameter @"embed.weight" : tensor<100x16xf32> frozen
    nn.parameter @"decoder.weight" : tensor<100x16xf32> tied_to @"embed.weight"
    nn.parameter @"encoder.weight" : tensor<16x16xf32> aliases ["decoder.weight"]
    nn.parameter @"scale" : tensor<2xf32> = dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyStaticShapeTensor>:$type,
                       UnitAttr:$frozen,
                       OptionalAttr<FlatSymbolRefAttr>:$tied_to,
                       OptionalAttr<StrArrayAttr>:$aliases,
                       OptionalAttr<ElementsAttr>:$value);
  let assemblyFormat = [{
    $sym_name `:` $type (`frozen` $frozen^)? (`tied_to` $tied_to^)?
    (`aliases` $aliases^)? (`=` $value^)? attr-dict
  }];
}

def NN_BufferOp : NN_StateOp<"buffer"> {
  let summary = "A non-trainable tensor of the module tree";
  let description = [{
    Declares a buffer (running statistics, masks) under its state_dict key.
    Only `persistent` buffers appear in the state_dict. The tracer gives the
    others (which no state_dict file holds) their `value`, so the compiled
    artifact carries them and binds PyTorch's own state_dict files; they
    can still be bound by name. `tied_to`, `aliases` and `value` work as on
    nn.parameter.

    ```mlir
    nn.buffer @"bn.running_mean" : tensor<32xf32> persistent
    nn.buffer @"attn.mask" : tensor<2x2xi1> = dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyStaticShapeTensor>:$type,
                       UnitAttr:$persistent,
                       OptionalAttr<FlatSymbolRefAttr>:$tied_to,
                       OptionalAttr<StrArrayAttr>:$aliases,
                       OptionalAttr<ElementsAttr>:$value);
  let assemblyFormat = [{
    $sym_name `:` $type (`persistent` $persistent^)? (`tied_to` $tied_to^)?
    (`aliases` $aliases^)? (`=` $value^)? attr-dict
  }];
}

def NN_LoadOp : NN_Op<"load", [MemoryEffects<[MemRead<NN_StateResource>]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads a parameter or buffer";
  let description = [{
    The current value of the parameter or buffer `name`; the result type is
    the declared type. It reads the state resource (nn.store writes it): CSE
    merges two loads of one name only when no store lies between them, and
    an unused load is dead.

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
  let summary = "y = x · weightᵀ + bias, as torch.nn.functional.linear";
  let description = [{
    `input` is `[..., in]`, `weight` is `[out, in]`, the optional `bias` is
    `[out]`; the result is `[..., out]`. An activation after it is its own
    op; nn-fuse groups them (nn.fused) and codegen applies it in the
    kernel's epilogue.

    ```mlir
    %y = nn.linear %x, %w, %b
        : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, NN_FloatTensor:$weight,
                       Optional<NN_FloatTensor>:$bias);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict
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

def NN_DropoutOp : NN_Op<"dropout", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "Zeroes elements with probability p in training, as torch.nn.functional.dropout";
  let description = [{
    In training, each element is zeroed with probability `p` and the others
    scaled by 1/(1-p). In evaluation (or with p = 0) it is the identity and
    folds away; only then may `rng` be absent.

    The random numbers are counter-based, and the generator's state is an
    operand, so the op is pure and a compiled forward keeps no hidden state:
    `rng` (a `tensor<2xi64>`, normally the forward's argument marked
    `nn.rng`) holds (seed, base). Element i (in row-major order) keeps its
    value when the first word of Philox4x32-10(key = seed, counter = base +
    `offset` + i), shifted right by 8, is below round((1-p)·2²⁴). The tracer
    gives each random op of a trace its own `offset` range; the runtime
    advances base by the forward's total draws on every run, so each run
    gets fresh masks and a seed reproduces the sequence. The masks are not
    PyTorch's (its generator differs).

    ```mlir
    %y = nn.dropout %x {p = 1.000000e-01 : f64} : tensor<2x256xf32>
    %z = nn.dropout %x rng %rng {p = 5.000000e-01 : f64, training, offset = 512 : i64}
        : tensor<2x256xf32>
    ```
  }];
  let arguments = (ins NN_FloatTensor:$input, Optional<NN_RngState>:$rng,
                       F64Attr:$p, UnitAttr:$training,
                       DefaultValuedAttr<I64Attr, "0">:$offset);
  let results = (outs NN_FloatTensor:$result);
  let assemblyFormat = "$input (`rng` $rng^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// True when the op changes its input (training with p > 0).
    bool isActive() { return getTraining() && getP().convertToDouble() > 0.0; }
  }];
}

//===----------------------------------------------------------------------===//
// Gradient hooks
//===----------------------------------------------------------------------===//

def NN_GradientHookOp : NN_Op<"gradient_hook", [Pure, InferTypeOpAdaptor]> {
  let summary = "The identity, where nn-autodiff hands gradients to a frontend hook";
  let description = [{
    Forward, each result is its operand. Backward, nn-autodiff gives the
    gradients reaching the results to the hook the frontend registered as
    `site` (a module's full backward hook or pre-hook, a tensor's hook),
    which may replace them; what it returns flows on to the operands. The
    tracer puts one around a module's tensor inputs and one around its
    outputs when the module has backward hooks, as PyTorch wraps them in
    BackwardHookFunction, and one after a tensor whose gradient is hooked,
    every use of that tensor going through it.

    Only the frontend that traced the function knows its hooks: nn-autodiff
    run without them (from nn-opt) refuses the op. Once differentiated it is
    gone, and in a forward-only function it folds away.

    ```mlir
    %h:2 = nn.gradient_hook %x, %y site 0 : tensor<8x16xf32>, tensor<8xi64>
    ```
  }];
  let arguments = (ins Variadic<NN_Tensor>:$inputs, I64Attr:$site);
  let results = (outs Variadic<NN_Tensor>:$results);
  let assemblyFormat = [{
    $inputs `site` $site attr-dict `:` type($inputs)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//

def NN_FusedOp : NN_Op<"fused", [Pure, IsolatedFromAbove, SingleBlock]> {
  let summary = "Ops computed in one loop nest: an optional contraction and a pointwise epilogue";
  let description = [{
    What nn-fuse makes of a producer and its consumers. The body's block
    arguments are the `inputs`; its first op may be a contraction
    (`nn.conv`, `nn.linear`, `nn.matmul`, the anchor), every other op is
    pointwise (add, mul, relu, gelu, clamp, ...) and produces a tensor of the
    group's result shape; `nn.yield` returns the result. Code generation
    emits the anchor's linalg op followed by one `linalg.generic` that
    evaluates the whole epilogue per element, so no intermediate tensor of
    the group reaches memory.

    ```mlir
    %y = nn.fused (%x, %w, %b, %r) : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>,
        tensor<8xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
    ^bb0(%a: tensor<1x8x6x6xf32>, %k: tensor<8x8x3x3xf32>, %c: tensor<8xf32>,
         %s: tensor<1x8x6x6xf32>):
      %0 = nn.conv %a, %k, %c stride [1, 1] padding [1, 1] dilation [1, 1] groups 1
          : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
      %1 = nn.add %0, %s : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
      %2 = nn.relu %1 : tensor<1x8x6x6xf32>
      nn.yield %2 : tensor<1x8x6x6xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<NN_Tensor>:$inputs);
  let results = (outs NN_FloatTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` `:` functional-type($inputs, results) attr-dict-with-keyword
    $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The contraction the group starts with, or null for a pointwise chain.
    ::mlir::Operation *getAnchor();
    /// The value nn.yield returns.
    ::mlir::Value getYielded();
    /// True for the ops that may start a group (conv, linear, matmul).
    static bool isAnchorOp(::mlir::Operation *op);
  }];
}

def NN_YieldOp : NN_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"FusedOp">]> {
  let summary = "Returns the result of an nn.fused group";
  let description = [{
    Terminates the body of an `nn.fused` group with the group's result.

    ```mlir
    %r = nn.fused (%x, %w) : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32> {
    ^bb0(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>):
      %y = nn.linear %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
      %z = nn.relu %y : tensor<2x3xf32>
      nn.yield %z : tensor<2x3xf32>
    }
    ```
  }];
  let arguments = (ins NN_Tensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
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
