//===- EpilogueAvx512.h - nn_rt_epilogue on one zmm of results --*- C++ -*-===//
//
// The vector form of nn_rt::applyEpilogue, shared by the AVX-512 GEMM's and
// direct convolution's stores. Included only by files compiled with
// -mavx512f (or against SIMDe's emulation, Avx512Intrinsics.h); internal
// linkage, so this copy never meets another ISA's.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_EPILOGUE_AVX512_H
#define NN_RUNTIME_EPILOGUE_AVX512_H

#include "Avx512Intrinsics.h"
#include "KernelsInternal.h"

namespace {

using nn_rt::vectorEpilogue;

/// The activation of `ep` on v. Max and min with the bound first, and a
/// mask of v > 0, keep NaN as the scalar reference does.
inline __m512 applyActivation16(const nn_rt_epilogue &ep, __m512 v) {
  switch (ep.activation) {
  case NN_RT_ACT_RELU:
    return _mm512_max_ps(_mm512_setzero_ps(), v);
  case NN_RT_ACT_CLAMP:
    return _mm512_min_ps(_mm512_set1_ps(ep.max),
                         _mm512_max_ps(_mm512_set1_ps(ep.min), v));
  case NN_RT_ACT_LEAKY_RELU: {
    __mmask16 positive = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ);
    return _mm512_mask_blend_ps(positive,
                                _mm512_mul_ps(v, _mm512_set1_ps(ep.slope)), v);
  }
  default:
    return v;
  }
}

/// nn_rt::applyEpilogue on C[m, n0:n0+16] held in v (vectorEpilogue(ep)
/// must hold), its addends read on the lanes of `mask` only: a partial
/// tile's are read no further than its last column.
inline __m512 applyEpilogue16(const nn_rt_epilogue &ep, __m512 v, int64_t m,
                              int64_t n0, __mmask16 mask = 0xffff) {
  for (const nn_rt_addend &a : ep.addends) {
    if (!a.data)
      continue;
    const float *p = a.data + m * a.row_stride + n0 * a.col_stride;
    v = _mm512_add_ps(v, a.col_stride == 0 ? _mm512_set1_ps(*p)
                                           : _mm512_maskz_loadu_ps(mask, p));
  }
  return applyActivation16(ep, v);
}

} // namespace

#endif // NN_RUNTIME_EPILOGUE_AVX512_H
