//===- DirectConvAvx512.cpp - The AVX-512 direct convolution (8 x 48) -----===//
//
// 24 zmm accumulators: 8 output channels x 3 vectors of 16 pixels of a row;
// per tap 3 input loads and 8 broadcasts feed 24 FMAs. Depthwise: 4 vectors
// (64 pixels) of one channel. Compiled with -mavx512f; only called after
// CPUID (and XGETBV) said the CPU and the OS support it. Written on an
// AVX2-only machine: like the AVX-512 GEMM, its results are tested there
// under SIMDe's emulation (KernelTestsAvx512Emulated), its speed nowhere yet.
//
//===----------------------------------------------------------------------===//

#include "Avx512Intrinsics.h"
#include "KernelsInternal.h"

// GCC 12's _mm512_max_ps / _mm512_min_ps pass a deliberately undefined
// vector as the unused merge source, which -Wmaybe-uninitialized reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define NN_DIRECT_NAMESPACE avx512

namespace {

using Vec = __m512;
constexpr int64_t VL = 16;
constexpr int OCB = 8;
constexpr int NV = 3;
constexpr int NVD = 4;

inline Vec vzero() { return _mm512_setzero_ps(); }
inline Vec vload(const float *p) { return _mm512_loadu_ps(p); }
inline void vstore(float *p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec vbroadcast(const float *p) { return _mm512_set1_ps(*p); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }

/// True when every addend of `ep` is contiguous or broadcast along a row.
inline bool vectorEpilogue(const nn_rt_epilogue &ep) {
  for (const nn_rt_addend &a : ep.addends)
    if (a.data && a.col_stride != 0 && a.col_stride != 1)
      return false;
  return true;
}

/// nn_rt::applyEpilogue on C[m, n0:n0+16] held in v. Max and min with the
/// bound first, and a mask of v > 0, keep NaN as the scalar reference does.
inline Vec applyEpilogueVec(const nn_rt_epilogue &ep, Vec v, int64_t m,
                            int64_t n0) {
  for (const nn_rt_addend &a : ep.addends) {
    if (!a.data)
      continue;
    const float *p = a.data + m * a.row_stride + n0 * a.col_stride;
    v = _mm512_add_ps(v, a.col_stride == 0 ? _mm512_set1_ps(*p)
                                           : _mm512_loadu_ps(p));
  }
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

} // namespace

#include "DirectConvImpl.h"
