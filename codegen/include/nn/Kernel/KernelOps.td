//===- KernelOps.td - The nn_kernel dialect ----------------*- tablegen -*-===//
//
// Micro-kernel calls as destination-passing ops: what convert-nn-to-kernel
// makes of a contraction (with the epilogue its store applies), on
// tensors, bufferized like linalg, and lowered to calls of a target's
// kernels by a late pass (nn-lower-kernel-ops for the CPU's nn_kernels);
// and the write of a model's state into its argument.
//
//===----------------------------------------------------------------------===//

#ifndef NN_KERNEL_OPS_TD
#define NN_KERNEL_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kernel_Dialect : Dialect {
  let name = "nn_kernel";
  let summary = "Micro-kernel calls as destination-passing ops";
  let description = [{
    Each op is one call of a micro-kernel: a GEMM, a 2-D convolution, a
    batched matmul, fused attention, or the packing of a weight ahead of
    time. On tensors, an op returns the tensor it writes into its `outs`
    operand, as linalg's ops do; one-shot bufferization turns it into the
    same op on memrefs, without results; a target's late pass turns that
    into the call. `nn_kernel.write_state` is forward's update of a buffer
    (BatchNorm's running statistics) into the caller's storage of it.
    Nothing before that pass holds a pointer: the model's
    context (where weights packed at bind are kept) is a
    `!nn_kernel.context` value and a packed weight a `!nn_kernel.packed`.

    ```mlir
    %e = tensor.empty() : tensor<64x256xf32>
    %y = nn_kernel.gemm %x, %w addends(%b : tensor<256xf32>)
        epilogue <add [0, 0, 1], relu> outs(%e : tensor<64x256xf32>)
        transpose_b : tensor<64x784xf32>, tensor<256x784xf32> -> tensor<64x256xf32>
    ```
  }];
  let cppNamespace = "::mlir::nn::kernel";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Kernel_Type<string name, string typeMnemonic>
    : TypeDef<Kernel_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Kernel_ContextType : Kernel_Type<"Context", "context"> {
  let summary = "The model's context: its slots, filled by @prepare";
  let description = [{
    The argument through which a compiled function reaches the buffers
    @prepare computed at bind (the runtime's context, an array of slot
    pointers). Lowered to `!llvm.ptr`.
  }];
}

def Kernel_PackedType : Kernel_Type<"Packed", "packed"> {
  let summary = "A weight packed for a kernel, of the given unpacked shape";
  let description = [{
    A weight in the layout a kernel reads (`nn_kernel.pack_*` writes it into
    a context slot at bind, `nn_kernel.packed` reads it). The shape is the
    weight's before packing, which the kernel's other operands are checked
    against: `!nn_kernel.packed<256x784>`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape);
  let assemblyFormat = "`<` custom<Dims>($shape) `>`";
}

//===----------------------------------------------------------------------===//
// The epilogue
//===----------------------------------------------------------------------===//

// Values match NN_RT_ACT_* (KernelABI.def; the CPU lowering asserts it).
def Kernel_Activation : I32EnumAttr<"Activation", "a kernel's activation", [
  I32EnumAttrCase<"none", 0>,
  I32EnumAttrCase<"relu", 1>,
  I32EnumAttrCase<"clamp", 2>,
  I32EnumAttrCase<"leaky_relu", 3>,
]> {
  let cppNamespace = "::mlir::nn::kernel";
  let genSpecializedAttr = 0;
}

def Kernel_EpilogueAttr : AttrDef<Kernel_Dialect, "Epilogue"> {
  let mnemonic = "epilogue";
  let summary = "What a kernel applies in its store";
  let description = [{
    Applied to each element of the kernel's result, in order: the addends
    (the op's `addends` operands, one `add [image, row, col]` each: the
    element for (i, m, n) of an addend is at i * image + m * row + n * col
    in its row-major buffer, a 0 stride broadcasting), then at most one
    activation: `relu`, `clamp(min, max)` or `leaky_relu(slope)`.

    `#nn_kernel.epilogue<add [0, 0, 1], clamp(0.0, 6.0)>`, written
    `epilogue <add [0, 0, 1], clamp(0.0, 6.0)>` in an op.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "image, row and column stride per addend">:$addendStrides,
    "Activation":$activation,
    APFloatParameter<"clamp's lower bound">:$min,
    APFloatParameter<"clamp's upper bound">:$max,
    APFloatParameter<"leaky_relu's negative slope">:$slope);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of addends.
    int64_t getNumAddends() const { return getAddendStrides().size() / 3; }
    /// Addend `i`'s {image, row, column} strides.
    ArrayRef<int64_t> getStrides(int64_t i) const {
      return getAddendStrides().slice(3 * i, 3);
    }
  }];
}

def Kernel_ArtifactAttr : AttrDef<Kernel_Dialect, "Artifact"> {
  let mnemonic = "artifact";
  let summary = "The compiled artifact's description (ArtifactABI.h)";
  let description = [{
    The calling convention of the model being compiled, as the runtime
    reads it (`::nn::ArtifactDescription`): its state by state_dict name,
    its inputs and outputs, the generator state it draws from.
    nn-describe-artifact reads it off the nn module, where the names still
    exist, and sets it as the module's `nn_kernel.artifact`; the artifact
    table completes it with what lowering decides (the workspace, the
    target) and embeds its JSON text, which is also how IR writes it:
    `#nn_kernel.artifact<"{\22abi_version\22:2,...}">`.
  }];
  let parameters = (ins AttrParameter<"::nn::ArtifactDescription",
      "the description", "const ::nn::ArtifactDescription &">:$description);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

def Kernel_F32TensorOrMemRef
    : AnyTypeOf<[RankedTensorOf<[F32]>, MemRefOf<[F32]>],
                "a ranked f32 tensor or memref">;
def Kernel_WeightOperand
    : AnyTypeOf<[RankedTensorOf<[F32]>, MemRefOf<[F32]>, Kernel_PackedType],
                "a ranked f32 tensor or memref, or a packed weight">;

// The ops every kernel call shares: destination-passing (one `init`, the
// result on tensors, none on memrefs), effects on memrefs only.
class Kernel_DpsOp<string mnemonic, list<Trait> traits = []>
    : Kernel_Op<mnemonic, !listconcat(traits, [
        DestinationStyleOpInterface,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  let results = (outs Optional<AnyRankedTensor>:$result);
  let hasVerifier = 1;
  code extraDpsDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// Whether the kernel reads `operand` as a row-major buffer (memrefs of
    /// an identity layout; bufferization copies into one when needed).
    bool needsRowMajor(OpOperand &operand);
  }];
}

def Kernel_GemmOp : Kernel_DpsOp<"gemm"> {
  let summary = "C[M, N] = epilogue(A[M, K] · B[K, N])";
  let description = [{
    One GEMM. `a` is A, or with `transpose_a` Aᵀ ([K, M]: a weight
    gradient's dYᵀ, read in place instead of transposed into a copy). `b`
    is B, or with `transpose_b` Bᵀ ([N, K]: nn.linear's weight), or a
    weight packed by `nn_kernel.pack_gemm_b` of that shape. A and B are
    read through any strides; the result and the addends are row-major.

    With `b_row_windows` = [r0, r1, ...], B is windows of rows of `b`
    ([R, W], not transposed or packed): its columns [i·W, (i + 1)·W) are
    rows [ri, ri + K) of `b`, so N = W · (number of windows). The windows
    are read while packing, never copied side by side: a stride-1
    convolution's weight gradient, one window of the padded input per kernel
    offset, is one GEMM.
  }];
  let arguments = (ins Kernel_F32TensorOrMemRef:$a, Kernel_WeightOperand:$b,
                   Variadic<Kernel_F32TensorOrMemRef>:$addends,
                   Kernel_F32TensorOrMemRef:$init,
                   UnitAttr:$transpose_a,
                   UnitAttr:$transpose_b,
                   OptionalAttr<DenseI64ArrayAttr>:$b_row_windows,
                   OptionalAttr<Kernel_EpilogueAttr>:$epilogue);
  let assemblyFormat = [{
    $a `,` $b (`row_windows` $b_row_windows^)?
    (`addends` `(` $addends^ `:` type($addends) `)`)?
    (`epilogue` $epilogue^)? `outs` `(` $init `:` type($init) `)`
    (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? attr-dict
    `:` type($a) `,` type($b) (`->` type($result)^)?
  }];
  let extraClassDeclaration = extraDpsDeclaration;
}

def Kernel_Conv2dOp : Kernel_DpsOp<"conv2d"> {
  let summary = "A 2-D convolution, NCHW, groups 1 or depthwise";
  let description = [{
    y[N, O, OH, OW] = epilogue(conv(x[N, C, H, W], w[O, C, KH, KW])), or
    with `depthwise` one [1, KH, KW] filter per channel (O = C, w of shape
    [C, 1, KH, KW]). `padding` is [top, left], or [top, left, bottom,
    right] as nn.conv's (the output's size says where the high sides end).
    `w` may be a weight packed by `nn_kernel.pack_conv2d_weight` for this
    geometry. Every operand is row-major.
  }];
  let arguments = (ins Kernel_F32TensorOrMemRef:$input,
                   Kernel_WeightOperand:$weight,
                   Variadic<Kernel_F32TensorOrMemRef>:$addends,
                   Kernel_F32TensorOrMemRef:$init,
                   DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                   DenseI64ArrayAttr:$dilation, UnitAttr:$depthwise,
                   OptionalAttr<Kernel_EpilogueAttr>:$epilogue);
  let assemblyFormat = [{
    $input `,` $weight (`addends` `(` $addends^ `:` type($addends) `)`)?
    (`epilogue` $epilogue^)? `outs` `(` $init `:` type($init) `)`
    `stride` $stride `padding` $padding `dilation` $dilation
    (`depthwise` $depthwise^)? attr-dict
    `:` type($input) `,` type($weight) (`->` type($result)^)?
  }];
  let extraClassDeclaration = extraDpsDeclaration;
}

def Kernel_MaxPool2dOp : Kernel_DpsOp<"max_pool2d"> {
  let summary = "2-D max pooling, NCHW";
  let description = [{
    y[N, C, OH, OW] = the maximum over each `kernel` window of x[N, C, H, W]
    (a NaN in a window is its maximum), as nn.max_pool computes it.
    `padding` is [top, left, bottom, right]: the high sides are what makes
    the output's size (ceil mode included) the windows' count, and padded
    cells (-inf) are never read. Every operand is row-major.

    ```mlir
    nn_kernel.max_pool2d %x outs(%init : tensor<1x3x4x4xf32>) kernel [3, 3]
        stride [2, 2] padding [1, 1, 1, 1] dilation [1, 1]
        : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Kernel_F32TensorOrMemRef:$input,
                   Kernel_F32TensorOrMemRef:$init,
                   DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
                   DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation);
  let assemblyFormat = [{
    $input `outs` `(` $init `:` type($init) `)` `kernel` $kernel
    `stride` $stride `padding` $padding `dilation` $dilation attr-dict
    `:` type($input) (`->` type($result)^)?
  }];
  let extraClassDeclaration = extraDpsDeclaration;
}

def Kernel_BatchMatmulOp : Kernel_DpsOp<"batch_matmul"> {
  let summary = "C[..., M, N] = epilogue(A[..., M, K] · B[..., K, N])";
  let description = [{
    A batch of GEMMs (at most 4 batch dimensions). Each operand is read
    through a permutation of its dimensions (`a_perm`: dimension i of A is
    dimension a_perm[i] of `a`, as nn.permute; identity when absent), its
    dimensions aligned to the right against the result's and a missing or
    size-1 batch dimension broadcast. The result is written permuted by
    `out_perm` (the init is nn.permute(C, out_perm); the last dimension
    stays last). The addends are row-major, one image per batch index.
  }];
  let arguments = (ins Kernel_F32TensorOrMemRef:$a,
                   Kernel_F32TensorOrMemRef:$b,
                   Variadic<Kernel_F32TensorOrMemRef>:$addends,
                   Kernel_F32TensorOrMemRef:$init,
                   OptionalAttr<DenseI64ArrayAttr>:$a_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$b_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$out_perm,
                   OptionalAttr<Kernel_EpilogueAttr>:$epilogue);
  let assemblyFormat = [{
    $a `,` $b (`addends` `(` $addends^ `:` type($addends) `)`)?
    (`epilogue` $epilogue^)? `outs` `(` $init `:` type($init) `)` attr-dict
    `:` type($a) `,` type($b) (`->` type($result)^)?
  }];
  let extraClassDeclaration = extraDpsDeclaration # [{
    /// The result's shape before `out_perm`: [batch..., M, N].
    SmallVector<int64_t> getLogicalShape();
  }];
}

def Kernel_AttentionOp : Kernel_DpsOp<"attention"> {
  let summary = "softmax(q·kᵀ·scale + mask, causal)·v, fused per query block";
  let description = [{
    Scaled dot-product attention without dropout: q [..., L, E], k
    [..., S, E], v [..., S, Ev], an optional additive mask [..., L, S], each
    read through its permutation (`q_perm`, ...; as for batch_matmul) and
    broadcast over the batch; the result [..., L, Ev] written permuted by
    `out_perm`. The scores are never written out.
  }];
  let arguments = (ins Kernel_F32TensorOrMemRef:$query,
                   Kernel_F32TensorOrMemRef:$key,
                   Kernel_F32TensorOrMemRef:$value,
                   Optional<Kernel_F32TensorOrMemRef>:$mask,
                   Kernel_F32TensorOrMemRef:$init,
                   F32Attr:$scale, UnitAttr:$causal,
                   OptionalAttr<DenseI64ArrayAttr>:$query_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$key_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$value_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$mask_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$out_perm);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    `outs` `(` $init `:` type($init) `)` `scale` $scale
    (`causal` $causal^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) (`->` type($result)^)?
  }];
  let extraClassDeclaration = extraDpsDeclaration # [{
    /// The result's shape before `out_perm`: [batch..., L, Ev].
    SmallVector<int64_t> getLogicalShape();
  }];
}

def Kernel_PackGemmBOp : Kernel_Op<"pack_gemm_b", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Packs a GEMM's B into a context slot";
  let description = [{
    Writes `source` (B [K, N], or with `transpose_b` Bᵀ [N, K]) packed as
    nn_kernel.gemm reads it into slot `slot` of the context, allocating the
    slot's buffer. Emitted into @prepare, which runs once at bind.
  }];
  let arguments = (ins Kernel_F32TensorOrMemRef:$source,
                   Kernel_ContextType:$ctx, I64Attr:$slot,
                   UnitAttr:$transpose_b);
  let assemblyFormat = [{
    $source `into` $ctx `[` $slot `]` (`transpose_b` $transpose_b^)?
    attr-dict `:` type($source)
  }];
  let hasVerifier = 1;
}

def Kernel_PackConv2dWeightOp : Kernel_Op<"pack_conv2d_weight", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Packs a convolution's weight into a context slot";
  let description = [{
    Writes `source` (OIHW, row-major) packed as nn_kernel.conv2d reads it
    for inputs of size `input_size` ([C, H, W]) and this stride, padding and
    dilation, into slot `slot` of the context, allocating its buffer.
  }];
  let arguments = (ins Kernel_F32TensorOrMemRef:$source,
                   Kernel_ContextType:$ctx, I64Attr:$slot,
                   DenseI64ArrayAttr:$input_size, DenseI64ArrayAttr:$stride,
                   DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation);
  let assemblyFormat = [{
    $source `into` $ctx `[` $slot `]` `input_size` $input_size
    `stride` $stride `padding` $padding `dilation` $dilation attr-dict
    `:` type($source)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The output's [OH, OW] for this geometry.
    SmallVector<int64_t> getOutputSize();
  }];
}

def Kernel_PackedOp : Kernel_Op<"packed", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "The weight packed into a context slot at bind";
  let arguments = (ins Kernel_ContextType:$ctx, I64Attr:$slot);
  let results = (outs Kernel_PackedType:$result);
  let assemblyFormat = "$ctx `[` $slot `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

def Kernel_WriteStateOp : Kernel_Op<"write_state", [
    AllTypesMatch<["value", "state"]>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Writes a value into the storage of a state argument";
  let description = [{
    What an `nn.store` becomes once the state is passed by the caller
    (nn-lower-state-to-arguments): `value` is written into the buffer the
    caller passed as `state`, an argument of the enclosing function, where
    the caller sees it after the call. The write is a side effect (the op
    has no result and is never dead); bufferization turns it into a copy
    into the argument's buffer, reading `state` (no op before it may reuse
    that buffer) and `value`.

    ```mlir
    nn_kernel.write_state %new_mean into %running_mean : tensor<64xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, AnyRankedTensor:$state);
  let assemblyFormat = "$value `into` $state attr-dict `:` type($state)";
  let hasVerifier = 1;
}

#endif // NN_KERNEL_OPS_TD
