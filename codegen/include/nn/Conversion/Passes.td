//===- Passes.td - Passes that leave the nn dialect --------*- tablegen -*-===//
//
// Lowerings out of nn: state symbols to function arguments, nn ops to
// linalg/tensor/arith/math on tensors. Each has a lit test named after its
// flag under tests/Conversion/.
//
//===----------------------------------------------------------------------===//
#ifndef NN_CONVERSION_PASSES_TD
#define NN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def DescribeArtifactPass
    : Pass<"nn-describe-artifact", "::mlir::ModuleOp"> {
  let summary = "Attach the artifact's description (ArtifactABI.h) to the "
                "module before it is lowered";
  let description = [{
    The first pass after nn-optimize in the compile pipeline. Reads the
    calling convention off the nn module while its names still exist: the
    state (parameters and buffers, with their values when embedded, and
    which ones the function writes), the inputs and outputs with their
    names, shapes and dtypes, the index checks and whether the function
    draws random numbers. The typed description (the runtime's
    ArtifactDescription) becomes the module's `nn_kernel.artifact`, which
    translateToArtifactIR completes with what lowering decides
    (workspace_bytes, target) and embeds, as JSON, in the artifact table.

    Refuses, at the op, what the ABI cannot carry: a dynamic shape, an
    element type without a safetensors name, a value of more bytes than an
    int64 counts (tensor<99999999999x99999999999xf32>), which tiling and
    buffer planning would compute with overflow.
  }];
  let options = [
    Option<"funcName", "func", "std::string", "\"forward\"",
           "The function the artifact runs">,
  ];
  let dependentDialects = ["::mlir::nn::kernel::KernelDialect"];
}

def LowerStateToArgumentsPass
    : Pass<"nn-lower-state-to-arguments", "::mlir::ModuleOp"> {
  let summary = "Turn parameters and buffers into leading function arguments";
  let description = [{
    Every `nn.parameter` and `nn.buffer` of the module that some function
    loads or stores becomes an argument of each public function, in
    declaration order and ahead of the function's own inputs (unused state
    gets none: the artifact description marks it `"argument": false` and
    still binds it by name); `nn.load` reads the argument; the declarations are erased. Each new
    argument carries `nn.state = "<state_dict key>"`, and the declaration's
    `value`, when it has one that no function writes, as `nn.embedded`: the
    artifact keeps that copy and reads it when the caller passes a null
    pointer (`"embedded": true` in its description). This is the calling
    convention of the compiled artifact: weights are bound by name at load
    time and passed by pointer.

    An `nn.store` becomes `nn_kernel.write_state` of the stored value into
    the state's argument, placed before the return (the last store of a
    name wins); the argument is marked `bufferization.writable`.

    Before:
    ```mlir
    nn.parameter @"fc.weight" : tensor<3x4xf32>
    func.func @forward(%x: tensor<2x4xf32>) -> tensor<3x4xf32> {
      %w = nn.load @"fc.weight" : tensor<3x4xf32>
      return %w : tensor<3x4xf32>
    }
    ```
    After:
    ```mlir
    func.func @forward(%w: tensor<3x4xf32> {nn.state = "fc.weight"},
                       %x: tensor<2x4xf32>) -> tensor<3x4xf32> {
      return %w : tensor<3x4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::nn::kernel::KernelDialect"];
}

def HoistStateComputationsPass
    : Pass<"nn-hoist-state-computations", "::mlir::ModuleOp"> {
  let summary = "Move what depends only on the state from forward into "
                "@prepare";
  let description = [{
    Splits `@forward` into the artifact's two entry points (ArtifactABI.h):
    a new public `@prepare` computes, once per binding of the weights,
    every value of forward that depends only on state forward never writes
    (`nn.load` of a symbol no `nn.store` in the module writes) and on
    constants; forward receives those values as leading arguments marked
    `nn.context_slot = <i>` and only reads them. This is batch-norm folding
    and `nn-fold-scalar-mul`'s `W * s` done at bind time instead of on every
    call. convert-nn-to-kernel later adds the packing of state-only
    weights to `@prepare`.

    An op moves when it is pure, has no region that could read values from
    above, every operand is state-only, and none of its results has more
    elements than its largest operand (so an `nn.expand` of a bias to the
    batch stays in forward: precomputing it would trade a cheap broadcast
    for memory). Values crossing to forward are those a remaining op reads;
    a crossing `nn.load` or constant is not a precomputed value and stays
    in forward. Train-mode batch-norm writes its running statistics
    (`nn.store`), so nothing computed from them moves; neither does
    anything that reads an input.

    The module gets `nn.context_slots` (how many slots the context has) and
    `nn.context_bytes` (each crossing value's size); slot i is @prepare's
    result i. `@prepare` is created, empty, even when nothing moves, so
    every artifact has one. Fails when the module already has a `@prepare`.

    Before:
    ```mlir
    nn.parameter @w : tensor<8x3xf32>
    nn.parameter @g : tensor<8xf32>
    func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x8xf32> {
      %w = nn.load @w : tensor<8x3xf32>
      %g = nn.load @g : tensor<8xf32>
      %s = nn.reshape %g [8, 1] : (tensor<8xf32>) -> tensor<8x1xf32>
      %ws = nn.mul %w, %s : (tensor<8x3xf32>, tensor<8x1xf32>) -> tensor<8x3xf32>
      %y = nn.linear %x, %ws : (tensor<2x3xf32>, tensor<8x3xf32>) -> tensor<2x8xf32>
      return %y : tensor<2x8xf32>
    }
    ```
    After:
    ```mlir
    func.func @prepare() -> tensor<8x3xf32> {
      %w = nn.load @w : tensor<8x3xf32>
      %g = nn.load @g : tensor<8xf32>
      %s = nn.reshape %g [8, 1] : (tensor<8xf32>) -> tensor<8x1xf32>
      %ws = nn.mul %w, %s : (tensor<8x3xf32>, tensor<8x1xf32>) -> tensor<8x3xf32>
      return %ws : tensor<8x3xf32>
    }
    func.func @forward(%ws: tensor<8x3xf32> {nn.context_slot = 0 : i64},
                       %x: tensor<2x3xf32>) -> tensor<2x8xf32> {
      %y = nn.linear %x, %ws : (tensor<2x3xf32>, tensor<8x3xf32>) -> tensor<2x8xf32>
      return %y : tensor<2x8xf32>
    }
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"forward\"",
           "The function to split">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def ConvertNNToLinalgPass : Pass<"convert-nn-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Lower nn ops to linalg, tensor, arith and math";
  let description = [{
    Converts every nn op of a function (after nn-lower-state-to-arguments) to
    linalg named ops or `linalg.generic` on tensors. Broadcasting becomes
    indexing maps. An `nn.fused` group becomes its contraction's linalg op
    followed by one `linalg.generic` evaluating the whole pointwise epilogue
    per element (every pointwise op shares its scalar body with its own
    lowering), so no intermediate of the group is materialized.
    Training-mode dropout draws its mask with a counter-based generator
    (Philox4x32-10) inside its linalg.generic. Fails, naming the op, on
    anything it cannot lower.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

def IsolateArgumentsPass
    : Pass<"nn-isolate-arguments", "::mlir::func::FuncOp"> {
  let summary = "Keep function arguments read-only and out of the results "
                "before bufferization";
  let description = [{
    Runs just before one-shot bufferization. Its two rules make a compiled
    function's arguments stay the caller's:

    - A tensor argument without `bufferization.writable` gets
      `bufferization.writable = false`. One-shot bufferization otherwise
      takes an argument as writable, and an op whose destination is an
      argument (hand-written linalg on tensors) would be computed in the
      caller's input buffer. State that forward updates is declared
      writable by nn-lower-state-to-arguments and keeps its attribute.
    - A returned argument, or a value returned twice, is copied into a
      tensor of its own (`bufferization.alloc_tensor copy(...)`), since each
      result becomes a separate caller-owned output. Without it, returning
      an input unchanged (Identity, a transpose of a transpose folded by
      canonicalization) makes bufferization return the argument's buffer,
      which MLIR 19's `buffer-results-to-out-params{hoist-static-allocs}`
      dereferences as an allocation and crashes on.

    A function with a memref result (hand-written IR: the lowering returns
    tensors) is refused, naming the function, the result and its type: a
    memref argument returned as it came in would crash the same way.

    Before:
    ```mlir
    func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
      %r = linalg.generic ... outs(%x : tensor<3xf32>) ...
      return %x, %r : tensor<3xf32>, tensor<3xf32>
    }
    ```
    After:
    ```mlir
    func.func @f(%x: tensor<3xf32> {bufferization.writable = false}) ... {
      %r = linalg.generic ... outs(%x : tensor<3xf32>) ...
      %c = bufferization.alloc_tensor() copy(%x) : tensor<3xf32>
      return %c, %r : tensor<3xf32>, tensor<3xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def ConvertNNToKernelPass
    : Pass<"convert-nn-to-kernel", "::mlir::ModuleOp"> {
  let summary = "Make matmul, linear, convolution, attention and max "
                "pooling nn_kernel ops, the micro-kernel calls on tensors";
  let description = [{
    Replaces the heavy ops by nn_kernel ops (nn/Kernel/KernelOps.td), each
    one call of a micro-kernel, destination-passing on tensors: 2-D
    `nn.matmul` and `nn.linear` become `nn_kernel.gemm` (nn.linear's weight
    as a transposed B), 2-D `nn.conv` with `groups 1` `nn_kernel.conv2d`,
    a depthwise one (`groups` = input channels = output channels)
    `nn_kernel.conv2d ... depthwise`, whether the op stands alone or leads
    an `nn.fused` group. The kernel applies an epilogue in its store
    (`#nn_kernel.epilogue`): the op's bias, then the chain of its single-use
    consumers that fits, in order: up to two `nn.add`s of a tensor broadcast
    to the result along whole GEMM rows/columns (a residual, a per-channel
    or per-feature vector), then one `nn.relu`, `nn.clamp` (relu6,
    hardtanh) or `nn.leaky_relu`. The rest of a group (gelu, silu, sigmoid,
    a chain that reads other epilogue values, ...) stays a pointwise
    `nn.fused` group over the kernel's result, which convert-nn-to-linalg
    makes one loop nest.

    `nn.matmul` with batch dimensions (up to four) becomes
    `nn_kernel.batch_matmul`, with the same epilogue (each batch index is an
    image of the addends), and `nn.scaled_dot_product_attention` without
    dropout (f32; no mask, a float mask or `causal`) becomes
    `nn_kernel.attention`, which fuses q·kᵀ, the scaled, masked softmax and
    ·v per block of queries. Both read an operand through the `nn.permute` /
    `nn.transpose` that made it (the op's `*_perm` attribute) and through
    an `nn.split` piece or its dimension-splitting `nn.reshape` (attention's
    head split: a `tensor.extract_slice` and `tensor.expand_shape`, strided
    views once bufferized, no copies), and write a single-use permute of
    their result that keeps the last dimension last (the head merge)
    directly in that order (`out_perm`).

    A 2-D `nn.max_pool` on f32 outside any group becomes
    `nn_kernel.max_pool2d`, its padding made [top, left, bottom, right] with
    the high sides that end the last window where the result's size (ceil
    mode or not) says; the kernel reads the input in place and never the
    padding (the linalg lowering pads a copy with -inf and is not
    vectorized: its window maps are no projected permutations).

    Each op writes a `tensor.empty`; nothing here holds a memref or a
    pointer. nn-lower-kernel-ops makes the calls after bufferization.

    When the module has a `@prepare` (nn-hoist-state-computations), a B
    operand or convolution weight that is the same on every call (a state
    argument forward never writes, or a value forward reads from a context
    slot) is packed there once: `@prepare` and every public function get a
    `!nn_kernel.context {nn.context}` argument; `@prepare` packs into a new
    slot (after the dense ones; `nn.context_slots` counts them) with
    `nn_kernel.pack_gemm_b` / `nn_kernel.pack_conv2d_weight`, and forward
    reads it with `nn_kernel.packed`, a `!nn_kernel.packed` operand of the
    kernel op. One operand read by several ops is packed once. A function
    that reads no slot loses its context argument again.

    A dense slot whose forward argument nothing reads any more (a
    batch-norm-folded weight that only a packed kernel read) is dropped:
    `@prepare` stops returning the value and only packs it, so it is a
    temporary freed when `@prepare` returns instead of a second copy of the
    weight kept in the context. A folded value forward still reads (a bias
    in an epilogue, a depthwise weight, a returned value) keeps its slot.
    Since which dense slots stay is known only once every kernel is
    lowered, the slots are numbered then, once: the kept dense slots in
    order, then the packed ones in the order the rewrite asked for them;
    `nn.context_bytes` / `nn.context_slots` say so.

    With a `@prepare`, fails, naming the function, unless the context is the
    one nn-hoist-state-computations leaves: `@prepare` one block,
    `nn.context_slots` and `nn.context_bytes` counting its results (no
    packed slots yet), and every `nn.context_slot` argument in a function
    with a body, naming one of `@prepare`'s results and of its type. A
    symbol named as one of the kernels but of another type is an error too
    (nn-lower-kernel-ops declares them).

    Runs after nn-lower-state-to-arguments and before convert-nn-to-linalg,
    which lowers whatever is left (other element types, grouped or 1-D
    convolutions, attention with dropout or a boolean mask, dynamic shapes,
    and the groups led by batched matmuls).

    Before:
    ```mlir
    %y = nn.fused (%x, %w, %b, %r) : (...) -> tensor<64x256xf32> {
    ^bb0(%a: tensor<64x784xf32>, %k: tensor<256x784xf32>, %c: tensor<256xf32>,
         %s: tensor<64x256xf32>):
      %0 = nn.linear %a, %k, %c : (...) -> tensor<64x256xf32>
      %1 = nn.add %0, %s : (...) -> tensor<64x256xf32>
      %2 = nn.gelu %1 : tensor<64x256xf32>
      nn.yield %2 : tensor<64x256xf32>
    }
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<64x256xf32>
    %t = nn_kernel.gemm %x, %w addends(%b, %r : tensor<256xf32>, tensor<64x256xf32>)
        epilogue <add [0, 0, 1], add [0, 256, 1]> outs(%e : tensor<64x256xf32>)
        transpose_b : tensor<64x784xf32>, tensor<256x784xf32> -> tensor<64x256xf32>
    %y = nn.fused (%t) : (tensor<64x256xf32>) -> tensor<64x256xf32> {
    ^bb0(%v: tensor<64x256xf32>):
      %0 = nn.gelu %v : tensor<64x256xf32>
      nn.yield %0 : tensor<64x256xf32>
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::nn::kernel::KernelDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def LowerKernelOpsPass : Pass<"nn-lower-kernel-ops", "::mlir::ModuleOp"> {
  let summary = "Call the CPU's micro-kernels for the nn_kernel ops";
  let description = [{
    After one-shot bufferization: each nn_kernel op on memrefs becomes the
    call of its function of the runtime's nn_kernels (runtime/include/nn/
    Runtime/Kernels.h): `nn_kernel.gemm` `nn_rt_sgemm` (or
    `nn_rt_sgemm_packed_b` with a packed B), `nn_kernel.conv2d`
    `nn_rt_conv2d_nchw`, `nn_rt_conv2d_nchw_packed` or
    `nn_rt_conv2d_depthwise_nchw`, `nn_kernel.batch_matmul`
    `nn_rt_sgemm_batched`, `nn_kernel.attention` `nn_rt_attention`;
    `nn_kernel.pack_*` the packing function into a buffer from
    `nn_rt_context_buffer`, `nn_kernel.packed` a load of the context's slot.
    The model's `!nn_kernel.context` arguments become `!llvm.ptr`.

    Operands cross as `!llvm.ptr` (a memref's aligned base plus its offset)
    and strides (`memref.extract_strided_metadata`), so a transposed or
    sliced operand is passed without a copy. The epilogue and matrix
    structs are stored into `llvm.alloca` slots of the function's entry
    block (no global state: the compiled forward stays re-entrant). The
    kernels are declared, and their structs laid out, as
    runtime/include/nn/Runtime/KernelABI.def says.

    Fails, at the op, on an nn_kernel op still on tensors.

    ```mlir
    nn_kernel.gemm %x, %w addends(%b : memref<256xf32>)
        epilogue <add [0, 0, 1], relu> outs(%out : memref<64x256xf32>)
        transpose_b : memref<64x784xf32>, memref<256x784xf32>
    ```
    becomes
    ```mlir
    llvm.store %epilogue, %slot : !llvm.struct<(...)>, !llvm.ptr
    call @nn_rt_sgemm(%c64, %c256, %c784, %xp, %c784, %c1, %wp, %c1, %c784,
                      %outp, %c256, %false, %slot) : (...) -> ()
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def LegalizeMathToF32Pass
    : Pass<"nn-legalize-math-to-f32", "::mlir::ModuleOp"> {
  let summary = "Compute math functions on f16 and bf16 in f32";
  let description = [{
    Upstream's `math-legalize-to-f32` with a type converter that widens only
    the floats narrower than f32: an `arith.extf` to f32 before the op and an
    `arith.truncf` after it. LLVM 19's pass widens every float that is not
    f32, so an f64 math op became an invalid `arith.extf` from f64 to f32 and
    no f64 model with exp, log, tanh, sigmoid or softmax compiled.

    Before:
    ```mlir
    %y = math.exp %x : vector<8xf16>
    %z = math.exp %w : vector<8xf64>
    ```
    After:
    ```mlir
    %e = arith.extf %x : vector<8xf16> to vector<8xf32>
    %f = math.exp %e : vector<8xf32>
    %y = arith.truncf %f : vector<8xf32> to vector<8xf16>
    %z = math.exp %w : vector<8xf64>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def ExpandBF16ConversionsPass
    : Pass<"nn-expand-bf16-conversions", "::mlir::ModuleOp"> {
  let summary = "Spell bf16 <-> f32 conversions as integer arithmetic";
  let description = [{
    Rewrites `arith.extf` from bf16 and `arith.truncf` to bf16 into bitcasts,
    shifts and a round-to-nearest-even bias (NaN becomes the quiet NaN
    0x7FC0, as c10::BFloat16 does), with upstream's
    `populateExpandBFloat16Patterns`. LLVM 19 lowers `fptrunc float to
    bfloat` on x86 without AVX512-BF16 to a call to `__truncsfbf2`, which
    Debian 12's libgcc (GCC 12) lacks, so a compiled model would not load.
    Unlike upstream's `arith-expand{include-bf16}`, nothing else is
    expanded: f32 `arith.maximumf`/`minimumf` keep their lowering.

    Runs on the loops after bufferization, after
    `arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}` and
    `nn-legalize-math-to-f32` have moved all bf16 arithmetic to f32, so the
    conversions are all that is left of bf16 besides loads and stores.

    Before:
    ```mlir
    %h = arith.truncf %x : f32 to bf16
    ```
    After:
    ```mlir
    %bits = arith.bitcast %x : f32 to i32
    ...                                   // + 0x7FFF + ((bits >> 16) & 1)
    %h = arith.bitcast %rounded : i16 to bf16
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FuseElementwiseOpsPass
    : Pass<"nn-fuse-elementwise-ops", "::mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generic producers into their "
                "consumers, except into consumers that broadcast them";
  let description = [{
    The upstream `linalg-fuse-elementwise-ops` (elementwise fusion of
    single-use producers, reshape folding by expansion, constant folding and
    the linalg canonicalizations), with one rule added: a producer is not
    inlined into a consumer that reads it through an indexing map that
    drops loops of more than one iteration (a broadcast). Inlined there, the
    producer's body would run once per consumer element instead of once per
    producer element: layer_norm's `1 / sqrt(var / n + eps)` per element of
    the row instead of once per row, softmax's `1 / sum` likewise. Kept
    apart, the producer writes a tensor as small as its own iteration space,
    which nn-tile-and-vectorize computes in the consumer's row tile
    (`fuse-rows`), so it never leaves the cache. A producer whose body only
    yields an operand computes nothing and is still inlined.

    Before (after convert-nn-to-linalg):
    ```mlir
    %inv = linalg.generic {indexing_maps = [#vec, #vec], ...}
        ins(%var : tensor<1024xf32>) ... { rsqrt ... }
    %y = linalg.generic {indexing_maps = [#id, #row, #id], ...}
        ins(%x, %inv : tensor<1024x256xf32>, tensor<1024xf32>) ... { mulf }
    ```
    After: unchanged (the upstream pass would inline the rsqrt into %y).
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TileAndVectorizePass
    : Pass<"nn-tile-and-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Tile linalg ops on tensors for threads and SIMD, then "
                "vectorize the inner tiles";
  let description = [{
    Runs on linalg on tensors, after nn-fuse-elementwise-ops and before
    bufferization. Each linalg op with static loop ranges is tiled twice:

    1. When its iteration space holds at least `min-parallel-work` points,
       the outermost parallel loop with more than one iteration is tiled
       into an `scf.forall` (tiles that divide the extent, about 64 of them,
       so every tile has the same static shape). nn-outline-parallel-loops
       later hands that loop to the runtime's thread pool.
    2. The loop that walks the innermost dimension of the first output (the
       vector dimension) is tiled to `vector-size` elements (or a smaller
       power of two, or the whole extent when it is at most `vector-size`,
       always dividing it), every other loop to 1, and the tile is
       vectorized with `linalg::vectorize`. Unit vector dimensions are then
       dropped so the vectors are 1-D, which is what LLVM maps onto
       registers.

    When an input is read along a reduction loop in its innermost
    dimension, that loop is the vector dimension if the combiner does not
    depend on the order (float maximum/minimum, as in softmax's row
    maximum; integer arithmetic). A float sum along it (softmax's and
    layer_norm's row sums, sum/mean/var over the last dimension, a matmul's
    k) is vectorized across rows instead: the output's innermost dimension
    stays in the vector lanes (`reduction-lanes` of them, 8 floats per AVX2
    register) and the reduction loop is walked in blocks of the same width.
    Inside a block the lane loop is made innermost, so the rows' elements
    arrive by a transposed read (contiguous row loads and an 8x8 shuffle
    transpose) and the block is reduced by one vector add per element, in
    order. Every lane adds its own row's elements one by one exactly as the
    scalar loop does, so the result is bit-identical to the unvectorized
    code and independent of the thread count, and no golden tolerance was
    loosened. (The alternative, PyTorch's in-row split into 8 partial sums
    and a fixed tree, also meets the goldens, but it changes the last bits,
    and needs a horizontal combine per row; across rows it costs only the
    transposes.) Reductions over outer dimensions keep their order too:
    each lane accumulates its own output element.

    Before that, an elementwise op that consumes row reductions (softmax's
    division by the row sums, layer_norm's normalization) is tiled into its
    `scf.forall` together with every linalg op it depends on whose users
    are all in that chain (`fuse-rows`, with
    `scf::tileConsumerAndFuseProducersUsingSCF`): a tile computes its rows'
    maxima, sums, means and variances and then its outputs, so each block of
    rows is read from memory once and stays in cache through every step;
    the ops of the tile are then vectorized as above. A producer is fused
    only where the tile takes part of it, so a reduction over the rows
    themselves (softmax along dim 0) is not recomputed per tile.

    f32 vector `math.exp`, `math.log`, `math.tanh` and `math.erf` are
    replaced by MLIR's polynomial approximations (`polynomial-math`), which
    stay in vector registers; LLVM would otherwise scalarize each into one
    libm call per lane. Their error against the correctly rounded result,
    measured by tests/Unit/Conversion/VectorMathTest.cpp (a sweep over each
    function's range and its special values), is 1 ulp for log and for exp
    below 88 (5 ulp in [88, 88.72]), 4 ulp for tanh and erf, well inside the
    goldens' rtol of 1.3e-6; exp flushes subnormal results to zero.
    MLIR's log reads the exponent field, so subnormal inputs are scaled by
    2^23 first. Scalar math (ops left unvectorized) keeps libm.

    Left alone (the scalar loops of convert-linalg-to-loops lower them
    later): ops with dynamic shapes, ops with an indexing map that is not a
    projected permutation (convolution windows), ops on buffers. Split over
    threads but not vectorized: ops with i1 (or other sub-byte) operands,
    since a vector of i1 is stored as packed bits and a buffer of i1 as
    bytes; ops whose body has multi-result ops (`arith.mului_extended`,
    which LLVM lowers only in 1-D form); ops that only move elements
    (copies, transposes: the vectorized read/write pair would fold back
    into a strided `memref.copy`, which compiled models do not link); ops
    whose vector dimension has no suitable divisor; float row sums whose
    reduced extent has no block of `reduction-lanes` dividing it, whose
    output is a scalar, or with another reduction loop inside the blocked
    one (that would change the order); ops `linalg::vectorize` declines.

    Before:
    ```mlir
    %r = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel"]}
        ins(%x : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {...}
    ```
    After (abridged):
    ```mlir
    %r = scf.forall (%i) = (0) to (65536) step (1024)
        shared_outs(%o = %e) -> (tensor<65536xf32>) {
      %t = scf.for %j = %c0 to %c1024 step %c32 iter_args(%a = ...) {
        %v = vector.transfer_read ... : tensor<32xf32>, vector<32xf32>
        ... arith on vector<32xf32> ...
        vector.transfer_write ...
      }
      scf.forall.in_parallel { tensor.parallel_insert_slice ... }
    }
    ```
  }];
  let options = [
    Option<"vectorSize", "vector-size", "int64_t", /*default=*/"32",
           "Elements per inner tile along the vector dimension (a power of "
           "two; 32 floats are four AVX2 registers)">,
    Option<"minParallelWork", "min-parallel-work", "int64_t",
           /*default=*/"65536",
           "Iteration points below which an op stays on the calling "
           "thread; 0 turns parallel tiling off">,
    Option<"reductionLanes", "reduction-lanes", "int64_t", /*default=*/"8",
           "Rows reduced together, one per vector lane, by a float sum "
           "along an input's innermost dimension (8 floats are one AVX2 "
           "register); 0 or 1 leaves such sums scalar">,
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"true",
           "Split an elementwise op that consumes row reductions over "
           "threads by rows together with the ops it depends on, so each "
           "block of rows streams from memory once">,
    Option<"polynomialMath", "polynomial-math", "bool", /*default=*/"true",
           "Replace f32 vector exp/log/tanh/erf by MLIR's polynomial "
           "approximations instead of one libm call per lane">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def OutlineParallelLoopsPass
    : Pass<"nn-outline-parallel-loops", "::mlir::ModuleOp"> {
  let summary = "Run scf.forall loops on buffers on the runtime's thread "
                "pool through nn_rt_parallel_for";
  let description = [{
    Runs after bufferization. Each one-dimensional `scf.forall` without
    results or mapping becomes a call

    ```c
    void nn_rt_parallel_for(int64_t n, void (*fn)(void *ctx, int64_t begin,
                                                  int64_t end), void *ctx);
    ```

    (runtime/include/nn/Runtime/Kernels.h). The loop body moves into a new
    private function `fn` (internal linkage, so a compiled object does not
    export it) that runs iterations [begin, end) in order. The
    values the body uses from outside travel in `ctx`, an array of 64-bit
    words on the caller's stack: a memref as its aligned pointer, offset,
    sizes and strides (the callee rebuilds its descriptor), an integer,
    index or float as its bits; constants are cloned into `fn` instead.
    Nothing global is written, so the compiled function stays re-entrant.
    A loop that uses a value of any other type is left alone.

    An iteration's scratch buffers (a `memref.alloc` directly in the body,
    statically shaped, freed by the same iteration; up to 64 KiB in all per
    loop, in body order) become
    one `memref.alloca` at the entry of `fn`: a fresh buffer's contents are
    undefined, so the iterations a thread runs in turn share it, and the
    allocator is not called per iteration (a row tile's statistics in
    softmax and layer_norm).

    Before:
    ```mlir
    scf.forall (%i) = (0) to (1024) step (64) {
      %v = memref.subview %buf[%i] [64] [1] : ...
      ...
    }
    ```
    After:
    ```mlir
    %ctx = memref.alloca() : memref<3xi64>
    ...                                         // store %buf's descriptor
    %fn = func.constant @forward_parallel_0 : (!llvm.ptr, i64, i64) -> ()
    call @nn_rt_parallel_for(%c16, %fn, %ctxp) : ...
    func.func private @forward_parallel_0(%ctx: !llvm.ptr, %begin: i64, %end: i64) {
      ...                                       // rebuild %buf
      scf.for %k = %b to %e step %c1 { %i = k * 64; ... }
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def FlattenEmptyArgumentsPass
    : Pass<"nn-flatten-empty-arguments", "::mlir::ModuleOp"> {
  let summary = "Give zero-size memref arguments of entry points a 1-D type "
                "the bare-pointer calling convention converts";
  let description = [{
    Runs after bufferization, before the conversion to LLVM. A tensor with
    a zero dimension that is not its first (a linear's weight
    `memref<3x0xf32>`, in_features = 0) is still an argument of the
    artifact, but the bare-pointer calling convention of
    convert-func-to-llvm (MLIR 19) refuses its type, leaving the function
    unconverted. Such an argument of a function nothing in the module calls
    (an entry point, called through the C ABI) becomes `memref<0xf32>`,
    viewed with its own shape again at the entry:

    ```mlir
    func.func @forward(%w: memref<0xf32>, ...) {
      %v = memref.reinterpret_cast %w to offset: [0], sizes: [3, 0],
             strides: [0, 1] : memref<0xf32> to memref<3x0xf32>
      ...  // every use of the argument reads %v
    }
    ```

    The pointer crossing the boundary is the same; nothing is read through
    it, as the tensor has no elements.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def UseNontemporalStoresPass
    : Pass<"nn-use-nontemporal-stores", "::mlir::func::FuncOp"> {
  let summary = "Write vectors into buffers larger than the last-level "
                "cache with non-temporal (streaming) stores";
  let description = [{
    Runs after bufferization (and nn-plan-buffers), before
    nn-outline-parallel-loops. A plain store of a cache line that is not in
    the cache first reads the line from memory (read for ownership), so a
    loop that writes a large output moves three bytes for each two it
    needs: relu(x * a + b) over 16M floats reads 64 MiB and writes 64 MiB
    but moves 192 MiB. A non-temporal store writes whole lines straight to
    memory without reading them. That is only a gain when the output would
    not be in the cache for its reader anyway, i.e. when the buffer is
    larger than the last-level cache (`min-bytes`): such a buffer has left
    the cache by the time the next op reads its first lines.

    Each `vector.transfer_write` into such a buffer (the root of its views,
    statically shaped, of at least `min-bytes` bytes) that writes a whole
    1-D vector of a multiple of `alignment` bytes, unmasked and in bounds,
    along a dimension of unit stride, becomes a check of the address it
    writes: when it is `alignment`-aligned, an `llvm.store` with
    `nontemporal` and that alignment (`vmovntps` on x86); otherwise the
    original write. Buffers handed in by the caller have any alignment, so
    the check is made at run time; it is the same for every vector of a
    loop over an aligned buffer, so the branch is always predicted.

    Non-temporal stores are weakly ordered: a `llvm.fence seq_cst` follows
    the outermost op containing them in each `scf.forall` body (each thread
    fences its own stores before the pool hears it is done) or function.

    Left alone: transfers with masks or out-of-bounds dimensions, transposed
    or strided ones, vectors that are not a multiple of `alignment` bytes,
    and buffers with dynamic shapes or below `min-bytes`.

    Before:
    ```mlir
    vector.transfer_write %v, %out[%i] {in_bounds = [true]}
        : vector<32xf32>, memref<262144xf32, strided<[1], offset: ?>>
    ```
    After:
    ```mlir
    %p = memref.extract_aligned_pointer_as_index %out : ... -> index
    ...                                    // %addr = %p + 4 * (offset + %i)
    %aligned = arith.cmpi eq, %low, %c0 : index   // %low = %addr & 31
    scf.if %aligned {
      %ptr = llvm.inttoptr %addr64 : i64 to !llvm.ptr
      llvm.store %v, %ptr {alignment = 32 : i64, nontemporal}
          : vector<32xf32>, !llvm.ptr
    } else {
      vector.transfer_write %v, %out[%i] {in_bounds = [true]} : ...
    }
    ...
    llvm.fence seq_cst
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t",
           /*default=*/"int64_t(32) << 20",
           "Buffers of at least this many bytes are written with "
           "non-temporal stores (the last-level cache of the machines nn "
           "is tuned on: 32 MiB); 0 turns the pass off">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"32",
           "The alignment a non-temporal vector store needs, in bytes "
           "(32 for AVX's vmovntps)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def PlanBuffersPass : Pass<"nn-plan-buffers", "::mlir::ModuleOp"> {
  let summary = "Place a function's statically sized intermediate buffers "
                "in one per-call arena instead of a malloc each";
  let description = [{
    Runs after bufferization and buffer-deallocation-pipeline, before
    nn-outline-parallel-loops. In every function with a body, each
    `memref.alloc` of the entry block with a static shape, an identity layout
    and no escape becomes a memref over one arena at an offset planned here,
    and the `memref.dealloc`s of the buffer (and of its views) are erased. The arena is acquired once at entry from the runtime and
    released before every return:

    ```c
    void *nn_rt_workspace_acquire(int64_t bytes);
    void nn_rt_workspace_release(void *block);
    ```

    (runtime/include/nn/Runtime/Kernels.h: a block cached per thread, so the
    function stays re-entrant and allocates nothing per call once the thread
    has its block). The function gets `nn.workspace_bytes`, the arena's
    size, which the artifact description reports as "workspace_bytes".

    A buffer is live from its alloc to the last op of the entry block that
    uses it, a view of it (subview, reshape, cast, ...) or an address taken
    from it (`memref.extract_aligned_pointer_as_index` and what is computed
    from that, through `llvm.store` into a slot to the op that reads the
    slot), a use nested in a loop or region counting as a use by the whole
    op. Buffers whose live ranges overlap get disjoint bytes; offsets are
    assigned greedily, largest buffer first, each in the smallest gap that
    fits (best fit), in units of 64 bytes, the alignment of every buffer.

    Left alone (stay a heap allocation; `emit-remarks` says why, as does
    `-debug-only=nn-plan-buffers`): dynamic sizes, layouts other than the
    identity, memory spaces, allocs inside a loop or region (each iteration
    of an `scf.forall` body runs on its own thread and needs its own buffer),
    buffers returned or passed through a region's terminator or into a
    region as an iteration argument, buffers merged with another buffer
    (`arith.select`), and alignments above 64 bytes. Functions with more than
    one block are left alone as a whole, and so is the artifact's `@prepare`
    (nn-hoist-state-computations): it runs once per binding, and an arena
    would stay cached in the binding thread's workspace, keeping its
    temporaries (a folded weight before it is packed) for the thread's life.

    Each planned buffer is a descriptor built from its address (arena +
    offset) and cast to its memref type, which finalize-memref-to-llvm folds
    away; not a `memref.view` of an i8 arena, because expand-strided-metadata
    folds `memref.extract_aligned_pointer_as_index` through any view-like op
    to the op's source, which is wrong for `memref.view` (it moves the
    aligned pointer) and would hand the kernels the arena's first byte.

    Before:
    ```mlir
    func.func @f(%out: memref<64xf32>) {
      %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
      ... writes %a ...
      %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
      ... reads %a, writes %b ...
      memref.dealloc %a : memref<64xf32>
      ... reads %b, writes %out ...
      memref.dealloc %b : memref<64xf32>
      return
    }
    ```
    After:
    ```mlir
    func.func @f(%out: memref<64xf32>) attributes {nn.workspace_bytes = 512 : i64} {
      %p = call @nn_rt_workspace_acquire(%c512) : (i64) -> !llvm.ptr
      ...                                 // descriptor of (%p, 0, [64], [1])
      %a = builtin.unrealized_conversion_cast %da : ... to memref<64xf32>
      %pb = llvm.getelementptr %p[256] : (!llvm.ptr) -> !llvm.ptr, i8
      ...                                 // descriptor of (%pb, 0, [64], [1])
      %b = builtin.unrealized_conversion_cast %db : ... to memref<64xf32>
      ...
      call @nn_rt_workspace_release(%p) : (!llvm.ptr) -> ()
      return
    }
    ```
  }];
  let options = [
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Attach a remark to each alloc saying where it was placed or why "
           "it stays a heap allocation">,
  ];
  let statistics = [
    Statistic<"numPlanned", "planned", "Allocations placed in an arena">,
    Statistic<"numLeftAlone", "left-alone",
              "Allocations left as heap allocations">,
    Statistic<"plannedBytes", "planned-bytes",
              "Bytes of the planned allocations, summed (64-byte units)">,
    Statistic<"arenaBytes", "arena-bytes", "Bytes of the arenas, summed">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // NN_CONVERSION_PASSES_TD
