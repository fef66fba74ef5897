//===- DirectConvAvx2.cpp - The AVX2 + FMA direct convolution (4 x 24) ----===//
//
// 12 ymm accumulators: 4 output channels x 3 vectors of 8 pixels of a row.
// Per tap 3 unaligned input loads and 4 weight broadcasts feed 12 FMAs (the
// GEMM's 6 x 16 tile needs 8 loads for its 12); on Zen 3 a third of the
// unaligned loads split a cache line, which still leaves the two FMA pipes
// the bound. Depthwise: 4 vectors (32 pixels) of one channel. Compiled with
// -mavx2 -mfma; only called after CPUID said so.
//
// Channel tiles: 6 pixels x 2 vectors of 8 output channels, 12 ymm
// accumulators fed per tap by 2 weight loads and 6 broadcasts.
//
//===----------------------------------------------------------------------===//

#include "EpilogueAvx2.h"

#include <immintrin.h>

#define NN_DIRECT_NAMESPACE avx2

namespace {

using Vec = __m256;
constexpr int64_t VL = 8;
constexpr int OCB = 4;
constexpr int NV = 3;
constexpr int NVD = 4;
constexpr int CV = 2;
constexpr int PT = 6;
constexpr int PTN = 4;

inline Vec vzero() { return _mm256_setzero_ps(); }
inline Vec vload(const float *p) { return _mm256_loadu_ps(p); }
inline void vstore(float *p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec vbroadcast(const float *p) { return _mm256_broadcast_ss(p); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
/// The epilogue's activation alone.
inline Vec applyActivationVec(const nn_rt_epilogue &ep, Vec v) {
  return applyActivation8(ep, v);
}
inline Vec applyEpilogueVec(const nn_rt_epilogue &ep, Vec v, int64_t m,
                            int64_t n0) {
  return applyEpilogue8(ep, v, m, n0);
}

/// The first `lanes` (< VL) lanes of a vector, as a mask.
using Lanes = __m256i;
inline Lanes firstLanes(int64_t lanes) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(lanes)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline void vstoreLanes(float *p, Vec v, Lanes mask) {
  _mm256_maskstore_ps(p, mask, v);
}
inline Vec applyEpilogueLanes(const nn_rt_epilogue &ep, Vec v, int64_t m,
                              int64_t n0, Lanes mask) {
  return applyEpilogue8(ep, v, m, n0, mask);
}

/// The lanes l with lo <= l < hi (DirectConvImpl.h's fillPhaseRow).
inline Lanes lanesBetween(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo > VL ? VL : lo;
  hi = hi < 0 ? 0 : hi > VL ? VL : hi;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_andnot_si256(
      _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(lo)), lane),
      _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(hi)), lane));
}
/// The lanes whose bits are set (bit l: lane l).
inline Lanes lanesFromBits(uint32_t bits) {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(
      _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), bit), bit);
}
/// The lanes `mask` of p[0, VL), the others zero and never read (a masked
/// load does not fault on them). Never called with no lane: on Zen 5 a
/// masked load of no lane took ten times a whole vector's.
inline Vec vloadLanes(const float *p, Lanes mask) {
  return _mm256_maskload_ps(p, mask);
}
/// Lanes 0, 2, 4, ... of a then b: every second float of a[0, 2 VL).
inline Vec evenLanes(Vec a, Vec b) {
  // a0 a2 b0 b2 | a4 a6 b4 b6, then its 64-bit pairs in the order 0 2 1 3.
  __m256 pairs = _mm256_shuffle_ps(a, b, 0x88);
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(pairs), 0xD8));
}

/// No compressing store: vectors stay within a row (VectorWalk). Rows of 56
/// are 7 whole ymm.
#define NN_DIRECT_JOIN_ROWS 0
/// No lane-shifting path: vpalignr shifts within 128-bit halves only.
#define NN_DIRECT_SHIFT_LANES 0

} // namespace

#include "DirectConvImpl.h"
