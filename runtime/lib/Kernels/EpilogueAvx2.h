//===- EpilogueAvx2.h - nn_rt_epilogue on one ymm of results ----*- C++ -*-===//
//
// The vector form of nn_rt::applyEpilogue, shared by the AVX2 GEMM's and
// direct convolution's stores. Included only by files compiled with -mavx2
// -mfma; internal linkage, so the AVX2 copy never meets another ISA's.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_EPILOGUE_AVX2_H
#define NN_RUNTIME_EPILOGUE_AVX2_H

#include "KernelsInternal.h"

#include <immintrin.h>

namespace {

using nn_rt::vectorEpilogue;

/// The activation of `ep` on v. The vector max, min and compare return
/// their second operand for NaN, so the bound goes first to keep NaN as the
/// scalar reference does.
inline __m256 applyActivation8(const nn_rt_epilogue &ep, __m256 v) {
  switch (ep.activation) {
  case NN_RT_ACT_RELU:
    return _mm256_max_ps(_mm256_setzero_ps(), v);
  case NN_RT_ACT_CLAMP:
    return _mm256_min_ps(_mm256_set1_ps(ep.max),
                         _mm256_max_ps(_mm256_set1_ps(ep.min), v));
  case NN_RT_ACT_LEAKY_RELU:
    // x > 0 ? x : slope * x (NaN is not > 0 and slope * NaN is NaN).
    return _mm256_blendv_ps(_mm256_mul_ps(v, _mm256_set1_ps(ep.slope)), v,
                            _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ));
  default:
    return v;
  }
}

/// nn_rt::applyEpilogue on C[m, n0:n0+8] held in v (vectorEpilogue(ep) must
/// hold).
inline __m256 applyEpilogue8(const nn_rt_epilogue &ep, __m256 v, int64_t m,
                             int64_t n0) {
  for (const nn_rt_addend &a : ep.addends) {
    if (!a.data)
      continue;
    const float *p = a.data + m * a.row_stride + n0 * a.col_stride;
    v = _mm256_add_ps(v, a.col_stride == 0 ? _mm256_broadcast_ss(p)
                                           : _mm256_loadu_ps(p));
  }
  return applyActivation8(ep, v);
}

/// The same on the lanes of `mask` only (its first lane set): a partial
/// tile's addends are read no further than its last column.
inline __m256 applyEpilogue8(const nn_rt_epilogue &ep, __m256 v, int64_t m,
                             int64_t n0, __m256i mask) {
  for (const nn_rt_addend &a : ep.addends) {
    if (!a.data)
      continue;
    const float *p = a.data + m * a.row_stride + n0 * a.col_stride;
    v = _mm256_add_ps(v, a.col_stride == 0 ? _mm256_broadcast_ss(p)
                                           : _mm256_maskload_ps(p, mask));
  }
  return applyActivation8(ep, v);
}

} // namespace

#endif // NN_RUNTIME_EPILOGUE_AVX2_H
