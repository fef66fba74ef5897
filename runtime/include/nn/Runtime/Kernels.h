/*===- Kernels.h - The C ABI of nn's CPU micro-kernels ------------*- C -*-===*\
|*                                                                            *|
|* Compiled models call these for their heavy ops (matmul, linear,            *|
|* convolution): packed, register-tiled GEMM with AVX2+FMA (AVX-512 when the  *|
|* CPU has it, chosen at the first call from CPUID), the bias and activation  *|
|* epilogue fused into the store, split over the runtime's thread pool.       *|
|*                                                                            *|
|* The code lives in the static PIC archive nn_kernels (no libstdc++, no     *|
|* libgcc helpers): nn-compile links it into every shared object, so a        *|
|* deployed .so needs only libc and libm; the JIT resolves the same symbols   *|
|* from the compiling process. The thread count is per copy of the archive:  *|
|* nn::Artifact forwards nn_rt_set_num_threads to the .so it loaded.          *|
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

/// Epilogue activations (the values of nn's Activation enum that kernels
/// implement).
enum { NN_RT_ACT_NONE = 0, NN_RT_ACT_RELU = 1 };

/// Threads used by the kernels' parallel loops (the caller included);
/// n <= 0 means one per online CPU. The default is 1.
NN_RT_EXPORT void nn_rt_set_num_threads(int32_t n);
NN_RT_EXPORT int32_t nn_rt_get_num_threads(void);

/// Runs fn(ctx, begin, end) over [0, n) split in contiguous chunks, one per
/// thread, and returns when all are done. Called while another
/// nn_rt_parallel_for runs (another thread, or nested), it runs serially.
typedef void (*nn_rt_range_fn)(void *ctx, int64_t begin, int64_t end);
NN_RT_EXPORT void nn_rt_parallel_for(int64_t n, nn_rt_range_fn fn, void *ctx);

/// C[m, n] = act(sum_k A[m, k] * B[k, n] + bias + (accumulate ? C[m, n] : 0))
/// Elements are addressed as A[m * rsA + k * csA], B[k * rsB + n * csB],
/// C[m * rsC + n] and (when bias is not null) bias[m * bsM + n * bsN], so a
/// transposed operand (nn.linear's weight) is only a change of strides.
NN_RT_EXPORT void nn_rt_sgemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsA,
                 int64_t csA, const float *B, int64_t rsB, int64_t csB,
                 float *C, int64_t rsC, const float *bias, int64_t bsM,
                 int64_t bsN, int32_t accumulate, int32_t activation);

/// 2-D convolution on contiguous NCHW input, OIHW weight (groups = 1) and
/// NCHW output: an implicit GEMM per image, Out[O, OH*OW] = W[O, C*KH*KW] x
/// im2col(input), the im2col gathered while packing (never materialized).
/// bias (nullable) is [O]; padding is zeros, pads = {top, left}.
NN_RT_EXPORT void nn_rt_conv2d_nchw(int64_t N, int64_t C, int64_t H, int64_t W,
                       const float *input, int64_t O, int64_t KH, int64_t KW,
                       const float *weight, const float *bias, int64_t strideH,
                       int64_t strideW, int64_t padTop, int64_t padLeft,
                       int64_t dilationH, int64_t dilationW, int64_t OH,
                       int64_t OW, float *output, int32_t activation);

#ifdef __cplusplus
}
#endif

#endif /* NN_RUNTIME_KERNELS_H */
