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

def LowerStateToArgumentsPass
    : Pass<"nn-lower-state-to-arguments", "::mlir::ModuleOp"> {
  let summary = "Turn parameters and buffers into leading function arguments";
  let description = [{
    Every `nn.parameter` and `nn.buffer` of the module that some function
    loads or stores becomes an argument of each public function, in
    declaration order and ahead of the function's own inputs (unused state
    gets none: the artifact description marks it `"argument": false` and
    still binds it by name); `nn.load` reads the argument; the declarations are erased. Each new
    argument carries `nn.state = "<state_dict key>"`. This is the calling
    convention of the compiled artifact: weights are bound by name at load
    time and passed by pointer.

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
                           "::mlir::bufferization::BufferizationDialect"];
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

    Every function result ends up in a tensor of its own: a returned argument
    or a value returned twice is copied (`bufferization.alloc_tensor
    copy(...)`), since each result becomes a separate caller-owned output.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

def LowerToKernelCallsPass
    : Pass<"nn-lower-to-kernel-calls", "::mlir::ModuleOp"> {
  let summary = "Call the runtime's packed micro-kernels for matmul, linear "
                "and convolution";
  let description = [{
    Replaces the heavy ops by calls into nn_kernels (runtime/include/nn/
    Runtime/Kernels.h): 2-D `nn.matmul` and `nn.linear` become
    `nn_rt_sgemm`, 2-D `nn.conv` with `groups 1` becomes `nn_rt_conv2d_nchw`
    (an implicit GEMM), whether the op stands alone or leads an `nn.fused`
    group. The kernel applies an epilogue in its store (`nn_rt_epilogue`):
    the op's bias, then the chain of its single-use consumers that fits,
    in order: up to two `nn.add`s of a tensor broadcast to the result along
    whole GEMM rows/columns (a residual, a per-channel or per-feature
    vector), then one `nn.relu`, `nn.clamp` (relu6, hardtanh) or
    `nn.leaky_relu`. The rest of a group (gelu, silu, sigmoid, a chain that
    reads other epilogue values, ...) stays a pointwise `nn.fused` group over
    the kernel's result, which convert-nn-to-linalg makes one loop nest.

    Operands are read through `bufferization.to_memref` (any strides: a
    transposed operand is only a stride change; addends contiguous), the
    result is a fresh 64-byte aligned `memref.alloc` handed back with
    `bufferization.to_tensor restrict writable`, so one-shot bufferization
    sees an ordinary new buffer. The epilogue struct is stored into an
    `llvm.alloca` slot of the function's entry block (no global state: the
    compiled forward stays re-entrant).

    Runs after nn-lower-state-to-arguments and before convert-nn-to-linalg,
    which lowers whatever is left (other element types, grouped or 1-D
    convolutions, batched matmuls, and the groups led by them).

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
    After (pointers are the aligned base plus the offset, as `!llvm.ptr`;
    the epilogue holds {bias, 0, 0, 1} and {residual, 0, 256, 1}):
    ```mlir
    %out = memref.alloc() {alignment = 64 : i64} : memref<64x256xf32>
    llvm.store %epilogue, %slot : !llvm.struct<(...)>, !llvm.ptr
    call @nn_rt_sgemm(%c64, %c256, %c784, %xp, %c784, %c1, %wp, %c1, %c784,
                      %outp, %c256, %false, %slot) : (...) -> ()
    %t = bufferization.to_tensor %out restrict writable : memref<64x256xf32>
    %y = nn.fused (%t) : (tensor<64x256xf32>) -> tensor<64x256xf32> {
    ^bb0(%v: tensor<64x256xf32>):
      %0 = nn.gelu %v : tensor<64x256xf32>
      nn.yield %0 : tensor<64x256xf32>
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::tensor::TensorDialect",
  ];
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
    `math-legalize-to-f32` have moved all bf16 arithmetic to f32, so the
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

def TileAndVectorizePass
    : Pass<"nn-tile-and-vectorize", "::mlir::func::FuncOp"> {
  let summary = "Tile linalg ops on tensors for threads and SIMD, then "
                "vectorize the inner tiles";
  let description = [{
    Runs on linalg on tensors, after linalg-fuse-elementwise-ops and before
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
    private function `fn` that runs iterations [begin, end) in order. The
    values the body uses from outside travel in `ctx`, an array of 64-bit
    words on the caller's stack: a memref as its aligned pointer, offset,
    sizes and strides (the callee rebuilds its descriptor), an integer,
    index or float as its bits; constants are cloned into `fn` instead.
    Nothing global is written, so the compiled function stays re-entrant.
    A loop that uses a value of any other type is left alone.

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

#endif // NN_CONVERSION_PASSES_TD
