/*===- Kernels.h - The C ABI of nn's CPU micro-kernels ------------*- C -*-===*\
|*                                                                            *|
|* Compiled models call these for their heavy ops (matmul, linear,            *|
|* convolution): packed, register-tiled GEMM with AVX2+FMA (AVX-512 when the  *|
|* CPU has it, chosen at the first call from CPUID), bias, residual and      *|
|* activation epilogues fused into the store, split over the thread pool.    *|
|*                                                                            *|
|* The code lives in the static PIC archive nn_kernels (no libstdc++, no     *|
|* libgcc helpers): nn-compile links it into every shared object, so a        *|
|* deployed .so needs only libc and libm; the JIT resolves the same symbols   *|
|* from the compiling process. The thread count is per copy of the archive:  *|
|* nn::Artifact forwards nn_rt_set_num_threads to the .so it loaded.          *|
|*                                                                            *|
|* KernelABI.def restates every function compiled code calls, every struct   *|
|* and every constant as a table the compiler builds its calls from; a test  *|
|* (KernelABITest) holds this header to it. Change both together.            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef NN_RUNTIME_KERNELS_H
#define NN_RUNTIME_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The archive is built with hidden visibility; only this ABI is exported. */
#define NN_RT_EXPORT __attribute__((visibility("default")))

/// Epilogue activations, applied after every addend.
enum {
  NN_RT_ACT_NONE = 0,
  NN_RT_ACT_RELU = 1,      /* max(x, 0); NaN stays NaN */
  NN_RT_ACT_CLAMP = 2,     /* min(max(x, min), max); NaN stays NaN */
  NN_RT_ACT_LEAKY_RELU = 3 /* x > 0 ? x : slope * x */
};

/// The most tensors one epilogue adds to a product.
#define NN_RT_MAX_ADDENDS 2

/// A tensor added to the product C[m, n] of a GEMM (image `i` of a batched
/// kernel such as convolution): data[i * image_stride + m * row_stride +
/// n * col_stride]. A zero stride broadcasts along that dimension, so one
/// struct covers a bias per row or per column and a full residual.
typedef struct nn_rt_addend {
  const float *data; /* NULL: the slot is unused */
  int64_t image_stride, row_stride, col_stride;
} nn_rt_addend;

/// What the kernels apply to each result in its store, in this order:
/// v = product (+ C when accumulating) + addends[0] + addends[1];
/// v = activation(v). A null epilogue pointer means none.
typedef struct nn_rt_epilogue {
  nn_rt_addend addends[NN_RT_MAX_ADDENDS];
  int32_t activation; /* NN_RT_ACT_* */
  float min, max;     /* NN_RT_ACT_CLAMP bounds (+-INFINITY when absent) */
  float slope;        /* NN_RT_ACT_LEAKY_RELU negative slope */
} nn_rt_epilogue;

/// Threads used by the kernels' parallel loops (the caller included);
/// n <= 0 means one per online CPU. The default is 1.
NN_RT_EXPORT void nn_rt_set_num_threads(int32_t n);
NN_RT_EXPORT int32_t nn_rt_get_num_threads(void);

/// Runs fn(ctx, begin, end) over [0, n) split in contiguous non-empty
/// ranges, each index exactly once, and returns when all are done. How
/// [0, n) is cut and which thread runs which range vary from call to call
/// (threads claim ranges as they go), so fn's result must not depend on
/// either. fn must not throw. Called while another nn_rt_parallel_for runs
/// (another thread, or nested), it runs serially: fn(ctx, 0, n).
typedef void (*nn_rt_range_fn)(void *ctx, int64_t begin, int64_t end);
NN_RT_EXPORT void nn_rt_parallel_for(int64_t n, nn_rt_range_fn fn, void *ctx);

/// C[m, n] = epilogue(sum_k A[m, k] * B[k, n] + (accumulate ? C[m, n] : 0))
/// Elements are addressed as A[m * rsA + k * csA], B[k * rsB + n * csB] and
/// C[m * rsC + n], so a transposed operand (nn.linear's weight) is only a
/// change of strides. The addends' image strides are unused.
NN_RT_EXPORT void nn_rt_sgemm(int64_t M, int64_t N, int64_t K, const float *A,
                              int64_t rsA, int64_t csA, const float *B,
                              int64_t rsB, int64_t csB, float *C, int64_t rsC,
                              int32_t accumulate,
                              const nn_rt_epilogue *epilogue);

/// nn_rt_sgemm with B made of `windows` windows of rows of one strided
/// matrix: columns [w * N / windows, (w + 1) * N / windows) of B are B's
/// first N / windows columns from row rowOffsets[w] on, i.e. B[k, n] =
/// B[(k + rowOffsets[w]) * rsB + (n - w * N / windows) * csB]. The windows
/// are gathered while packing, never copied out: a stride-1 convolution's
/// weight gradient, one window of the padded input per kernel offset
/// (nn-autodiff), is one GEMM. N must be a multiple of `windows`.
NN_RT_EXPORT void
nn_rt_sgemm_b_windows(int64_t M, int64_t N, int64_t K, const float *A,
                      int64_t rsA, int64_t csA, const float *B, int64_t rsB,
                      int64_t csB, int64_t windows, const int64_t *rowOffsets,
                      float *C, int64_t rsC, int32_t accumulate,
                      const nn_rt_epilogue *epilogue);

/// 2-D convolution on contiguous NCHW input, OIHW weight (groups = 1) and
/// NCHW output. Windows up to 64 taps with strides up to 4 run a direct
/// kernel over a zero-padded copy of each band of input rows (no gather, no
/// bounds checks; see KernelsInternal.h); the rest (and the plain 1x1 case)
/// an implicit GEMM per image, Out[O, OH*OW] = W[O, C*KH*KW] x
/// im2col(input), the im2col gathered while packing (never materialized).
/// Padding is zeros, pads = {top, left}. The epilogue's rows are output
/// channels, its columns output pixels (oy * OW + ox), its images the batch:
/// a bias is {bias, 0, 1, 0}, a residual of the output's shape
/// {r, O*OH*OW, OH*OW, 1}. The weight is packed per call into a buffer the
/// calling thread keeps (grown to the largest weight it has packed), so a
/// call allocates nothing once its thread has seen the size; a weight that
/// is the same on every call is better packed once (nn_rt_conv2d_pack_weight).
NN_RT_EXPORT void nn_rt_conv2d_nchw(int64_t N, int64_t C, int64_t H, int64_t W,
                                    const float *input, int64_t O, int64_t KH,
                                    int64_t KW, const float *weight,
                                    int64_t strideH, int64_t strideW,
                                    int64_t padTop, int64_t padLeft,
                                    int64_t dilationH, int64_t dilationW,
                                    int64_t OH, int64_t OW, float *output,
                                    const nn_rt_epilogue *epilogue);

/// The most batch dimensions of the batched kernels (nn.matmul's and
/// attention's leading dimensions); fewer are passed as leading 1s.
#define NN_RT_MAX_BATCH_DIMS 4

/// A strided view of a batch of matrices: element (b, r, c), b a batch
/// index, is data[sum_i b[i] * batch_strides[i] + r * row_stride +
/// c * col_stride]. A zero stride broadcasts along that dimension, so one
/// operand may serve every batch index (a weight) and the views of
/// transposes and head splits need no copy.
typedef struct nn_rt_matrix {
  float *data;
  int64_t batch_strides[NN_RT_MAX_BATCH_DIMS];
  int64_t row_stride, col_stride;
} nn_rt_matrix;

/// For every batch index b < batch (row-major over the NN_RT_MAX_BATCH_DIMS
/// sizes): C_b[M, N] = epilogue(A_b[M, K] x B_b[K, N] (+ C_b)). C's
/// col_stride must be 1. The epilogue's image is the flattened batch index
/// (b[0] * batch[1] * batch[2] * batch[3] + ...). Split over the thread pool
/// by batch and by register tiles.
NN_RT_EXPORT void nn_rt_sgemm_batched(const int64_t *batch, int64_t M,
                                      int64_t N, int64_t K,
                                      const nn_rt_matrix *A,
                                      const nn_rt_matrix *B,
                                      const nn_rt_matrix *C, int32_t accumulate,
                                      const nn_rt_epilogue *epilogue);

/// Scaled dot-product attention without dropout, for every batch index b
/// (as nn_rt_sgemm_batched):
///   out_b[L, Ev] = softmax(q_b[L, E] x k_b[S, E]^T * scale + mask_b) x v_b[S,
///   Ev]
/// mask (NULL: none) is a float [L, S] view added to the scaled scores;
/// causal (exclusive with a mask) gives -inf to key positions s > l. The
/// scores of one block of queries live in a per-thread buffer, a block of
/// keys at a time, the softmax running over key blocks (flash attention):
/// no [L, S] matrix is written to memory. A query row that attends to
/// nothing gives NaN, as PyTorch's math kernel does.
NN_RT_EXPORT void nn_rt_attention(const int64_t *batch, int64_t L, int64_t S,
                                  int64_t E, int64_t Ev, const nn_rt_matrix *q,
                                  const nn_rt_matrix *k, const nn_rt_matrix *v,
                                  const nn_rt_matrix *mask,
                                  const nn_rt_matrix *out, float scale,
                                  int32_t causal);

/*===-- Constant operands packed once -----------------------------------===*\
 * A weight that does not change between calls (a linear or convolution
 * weight, or one a compiled model's prepare step derived from its state) is
 * packed once into the register-tile layout of the kernel that reads it,
 * instead of on every call. The layout, and so the size, is chosen by the
 * same CPU dispatch as the kernels (AVX2 or AVX-512 tiles, or a plain
 * row-major copy without either), so a packed buffer is only valid in the
 * process (and for the copy of nn_kernels) that packed it. It does not
 * depend on the thread count. Results are bit-identical to the unpacked
 * entry points. Buffers must be 64-byte aligned.
\*===--------------------------------------------------------------------===*/

/// Bytes of B[K, N] packed by nn_rt_sgemm_pack_b.
NN_RT_EXPORT int64_t nn_rt_sgemm_pack_b_size(int64_t K, int64_t N);
/// Packs B[k * rsB + n * csB] (k < K, n < N) into `packed`.
NN_RT_EXPORT void nn_rt_sgemm_pack_b(int64_t K, int64_t N, const float *B,
                                     int64_t rsB, int64_t csB, float *packed);
/// nn_rt_sgemm with B given packed (nn_rt_sgemm_pack_b of the same K, N).
NN_RT_EXPORT void nn_rt_sgemm_packed_b(int64_t M, int64_t N, int64_t K,
                                       const float *A, int64_t rsA, int64_t csA,
                                       const float *packedB, float *C,
                                       int64_t rsC, int32_t accumulate,
                                       const nn_rt_epilogue *epilogue);

/// Bytes of an OIHW convolution weight packed by nn_rt_conv2d_pack_weight
/// for a convolution of this geometry (nn_rt_conv2d_nchw's arguments
/// without the batch and the data): the geometry decides which kernel runs
/// it, the direct one or the implicit GEMM, and so the layout.
NN_RT_EXPORT int64_t nn_rt_conv2d_pack_weight_size(
    int64_t C, int64_t H, int64_t W, int64_t O, int64_t KH, int64_t KW,
    int64_t strideH, int64_t strideW, int64_t padTop, int64_t padLeft,
    int64_t dilationH, int64_t dilationW, int64_t OH, int64_t OW);
/// Packs a contiguous OIHW weight into `packed` for that geometry.
NN_RT_EXPORT void nn_rt_conv2d_pack_weight(int64_t C, int64_t H, int64_t W,
                                           int64_t O, int64_t KH, int64_t KW,
                                           const float *weight, int64_t strideH,
                                           int64_t strideW, int64_t padTop,
                                           int64_t padLeft, int64_t dilationH,
                                           int64_t dilationW, int64_t OH,
                                           int64_t OW, float *packed);
/// nn_rt_conv2d_nchw with the weight packed for the same geometry.
NN_RT_EXPORT void nn_rt_conv2d_nchw_packed(
    int64_t N, int64_t C, int64_t H, int64_t W, const float *input, int64_t O,
    int64_t KH, int64_t KW, const float *packedWeight, int64_t strideH,
    int64_t strideW, int64_t padTop, int64_t padLeft, int64_t dilationH,
    int64_t dilationW, int64_t OH, int64_t OW, float *output,
    const nn_rt_epilogue *epilogue);

/// Depthwise 2-D convolution (groups = C = O): output channel c is input
/// channel c convolved with weight[c, 0] ([C, 1, KH, KW] row-major); NCHW in
/// and out, arguments and epilogue as nn_rt_conv2d_nchw's with O = C.
NN_RT_EXPORT void nn_rt_conv2d_depthwise_nchw(
    int64_t N, int64_t C, int64_t H, int64_t W, const float *input, int64_t KH,
    int64_t KW, const float *weight, int64_t strideH, int64_t strideW,
    int64_t padTop, int64_t padLeft, int64_t dilationH, int64_t dilationW,
    int64_t OH, int64_t OW, float *output, const nn_rt_epilogue *epilogue);

/// 2-D max pooling, NCHW in and out: output[n, c, oh, ow] is the maximum of
/// input[n, c, oh * strideH - padTop + kh * dilationH, ow * strideW -
/// padLeft + kw * dilationW] over the kh < KH, kw < KW inside the input
/// (the padding is -inf, so a window wholly in it gives -inf); OH and OW
/// (ceil mode or not) say where the windows end. A NaN in a window is its
/// maximum, as in PyTorch.
NN_RT_EXPORT void nn_rt_max_pool2d_nchw(int64_t N, int64_t C, int64_t H,
                                        int64_t W, const float *input,
                                        int64_t KH, int64_t KW, int64_t strideH,
                                        int64_t strideW, int64_t padTop,
                                        int64_t padLeft, int64_t dilationH,
                                        int64_t dilationW, int64_t OH,
                                        int64_t OW, float *output);

/// The buffer in `slots[index]` of a compiled model's context, allocated
/// (64-byte aligned, `bytes` long) on first use, replaced by a larger one when
/// asked for more than it holds, and kept until nn_rt_context_destroy: where
/// prepare writes what forward reads (forward loads slots[index] directly).
/// Null when out of memory; the packing functions skip a null buffer, and the
/// artifact's prepare then fails.
NN_RT_EXPORT void *nn_rt_context_buffer(void **slots, int64_t index,
                                        int64_t bytes);
/// A context of `count` empty slots (never null for count 0), or null when
/// out of memory; nn_rt_context_destroy frees it and every slot's buffer.
NN_RT_EXPORT void **nn_rt_context_create(int64_t count);
NN_RT_EXPORT void nn_rt_context_destroy(void **slots, int64_t count);

/// The arena of a compiled forward's planned intermediates (nn-plan-buffers):
/// a block of at least `bytes` bytes, 64-byte aligned, that stays the
/// caller's until nn_rt_workspace_release. Each thread keeps one block
/// cached between calls, grown when a larger one is asked for, so a forward
/// run again on the same thread allocates nothing; it is freed when the
/// thread exits (or this copy of the kernels is unloaded). An acquire while
/// the thread's block is out (a forward inside a forward) gets a block of
/// its own, freed by its release. Aborts when memory is exhausted, as the
/// compiled code's other allocations do.
NN_RT_EXPORT void *nn_rt_workspace_acquire(int64_t bytes);
NN_RT_EXPORT void nn_rt_workspace_release(void *block);

/// Frees the memory this copy of the kernels keeps cached for reuse by the
/// next call: the calling thread's workspace arena (unless a forward holds
/// it) and kernel buffers (packing blocks, per-call packed weights,
/// convolution and attention scratch), and the thread pool's workers'
/// kernel buffers (after the loop running now, if any). Other threads keep
/// theirs until they exit or call this. The next call that needs them
/// allocates them again. Runs by itself when the last model context
/// (nn_rt_context_create) is destroyed; never call it from inside a kernel.
NN_RT_EXPORT void nn_rt_release_cached_memory(void);

/// How many blocks nn_rt_workspace_acquire has allocated in this copy of
/// the kernels since it was loaded: steady state means it stops growing.
NN_RT_EXPORT int64_t nn_rt_workspace_allocations(void);

/// MLIR's runtime function for a memref.copy between layouts that are not
/// both contiguous (finalize-memref-to-llvm calls it, with the C runner
/// utilities' signature): copies the elements of `source` to `dest`, both
/// unranked memref descriptors {rank, strided descriptor} of one shape.
typedef struct nn_rt_unranked_memref {
  int64_t rank;
  void *descriptor;
} nn_rt_unranked_memref;
NN_RT_EXPORT void memrefCopy(int64_t element_size,
                             nn_rt_unranked_memref *source,
                             nn_rt_unranked_memref *dest);

#ifdef __cplusplus
}
#endif

#endif /* NN_RUNTIME_KERNELS_H */
