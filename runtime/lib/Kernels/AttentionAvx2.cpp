//===- AttentionAvx2.cpp - Attention's softmax rows with AVX2 + FMA -------===//
//
// The vector exp and the row passes of nn_rt_attention's softmax. Compiled
// with -mavx2 -mfma; only called after CPUID said so (the AVX-512 path uses
// these too: the softmax is a small share of attention next to its GEMMs).
//
// exp(x) = 2^q * exp(s), q = round(x / ln 2), s = x - q ln 2 in [-ln2/2,
// ln2/2] with ln 2 split in two (Cody & Waite) so that s is exact to float
// precision, exp(s) a degree-6 minimax polynomial (SLEEF's expf
// coefficients), and 2^q applied as two factors 2^(q/2) 2^(q - q/2) so that
// results down to the smallest denormal and up to overflow are rounded once.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <immintrin.h>
#include <math.h>

namespace {

/// exp of each lane (see the file comment).
inline __m256 exp8(__m256 x) {
  // Below -104 the result rounds to 0, above 89 it overflows to inf; the
  // clamp keeps q inside what the two power-of-two factors can represent.
  // max/min return their second operand for NaN: x is restored at the end.
  __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-104.f)),
                            _mm256_set1_ps(89.f));
  __m256 q = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.442695041f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 s = _mm256_fnmadd_ps(q, _mm256_set1_ps(0.693145751953125f), xc);
  s = _mm256_fnmadd_ps(q, _mm256_set1_ps(1.428606765330187045e-06f), s);
  __m256 u = _mm256_set1_ps(0.000198527617612853646278381f);
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.00139304355252534151077271f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.00833336077630519866943359f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.0416664853692054748535156f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.166666671633720397949219f));
  u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.5f));
  u = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s),
                    _mm256_set1_ps(1.f));
  // q in [-150, 129]: 2^q = 2^q1 * 2^q2 with both exponents normal.
  __m256i qi = _mm256_cvtps_epi32(q);
  __m256i q1 = _mm256_srai_epi32(qi, 1);
  __m256i q2 = _mm256_sub_epi32(qi, q1);
  const __m256i bias = _mm256_set1_epi32(127);
  __m256 p1 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q1, bias), 23));
  __m256 p2 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(q2, bias), 23));
  __m256 r = _mm256_mul_ps(_mm256_mul_ps(u, p1), p2);
  __m256 isNaN = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  return _mm256_blendv_ps(r, _mm256_add_ps(x, x), isNaN);
}

/// The first n (< 8) lanes selected.
inline __m256i firstLanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline float horizontalMax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

inline float horizontalSum(__m256 v) {
  __m128 m = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_add_ps(m, _mm_movehl_ps(m, m));
  m = _mm_add_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

} // namespace

namespace nn_rt {
namespace avx2 {

void expRow(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, exp8(_mm256_loadu_ps(x + i)));
  if (i < n) {
    __m256i lanes = firstLanes(n - i);
    _mm256_maskstore_ps(y + i, lanes, exp8(_mm256_maskload_ps(x + i, lanes)));
  }
}

float scaleMaskMaxRow(float *x, int64_t n, int64_t valid, float scale,
                      const float *mask) {
  const __m256 vscale = _mm256_set1_ps(scale);
  const __m256 ninf = _mm256_set1_ps(-INFINITY);
  __m256 vmax = ninf;
  auto step = [&](int64_t i, __m256 v, __m256 keep) {
    v = _mm256_mul_ps(v, vscale);
    if (mask)
      v = _mm256_add_ps(v, _mm256_loadu_ps(mask + i));
    v = _mm256_blendv_ps(ninf, v, keep);
    vmax = _mm256_max_ps(v, vmax);
    return v;
  };
  int64_t i = 0;
  const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
  for (; i + 8 <= valid; i += 8)
    _mm256_storeu_ps(x + i, step(i, _mm256_loadu_ps(x + i), all));
  for (; i < n; i += 8) {
    // The tail of the valid part, or beyond it: lanes >= valid get -inf.
    __m256i inRow = firstLanes(n - i < 8 ? n - i : 8);
    __m256 keep =
        _mm256_castsi256_ps(firstLanes(valid - i > 0 ? valid - i : 0));
    __m256 v = _mm256_maskload_ps(x + i, _mm256_castps_si256(keep));
    if (mask) {
      // Read the mask only where it is defined (keep lanes).
      v = _mm256_mul_ps(v, vscale);
      v = _mm256_add_ps(
          v, _mm256_maskload_ps(mask + i, _mm256_castps_si256(keep)));
      v = _mm256_blendv_ps(ninf, v, keep);
      vmax = _mm256_max_ps(v, vmax);
    } else {
      v = _mm256_blendv_ps(ninf, _mm256_mul_ps(v, vscale), keep);
      vmax = _mm256_max_ps(v, vmax);
    }
    _mm256_maskstore_ps(x + i, inRow, v);
  }
  return horizontalMax(vmax);
}

float expShiftSumRow(float *x, int64_t n, float shift) {
  const __m256 vshift = _mm256_set1_ps(shift);
  __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 e0 = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), vshift));
    __m256 e1 = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), vshift));
    _mm256_storeu_ps(x + i, e0);
    _mm256_storeu_ps(x + i + 8, e1);
    sum0 = _mm256_add_ps(sum0, e0);
    sum1 = _mm256_add_ps(sum1, e1);
  }
  for (; i < n; i += 8) {
    __m256i lanes = firstLanes(n - i < 8 ? n - i : 8);
    __m256 e = exp8(_mm256_sub_ps(_mm256_maskload_ps(x + i, lanes), vshift));
    e = _mm256_and_ps(e, _mm256_castsi256_ps(lanes)); // lanes past n add 0
    _mm256_maskstore_ps(x + i, lanes, e);
    sum0 = _mm256_add_ps(sum0, e);
  }
  return horizontalSum(_mm256_add_ps(sum0, sum1));
}

void scaleRow(float *x, int64_t n, float factor) {
  const __m256 f = _mm256_set1_ps(factor);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), f));
  for (; i < n; ++i)
    x[i] *= factor;
}

} // namespace avx2
} // namespace nn_rt
