//===- DirectConvAvx512.cpp - The AVX-512 direct convolution (8 x 48) -----===//
//
// 24 zmm accumulators: 8 output channels x 3 vectors of 16 pixels; per tap
// 3 input loads and 8 broadcasts feed 24 FMAs. A vector may span a row's
// end (VectorWalk's joined rows), its lanes compressed when stored. Depthwise:
// 4 vectors (64 pixels) of one channel; at stride 1 with the output the
// input's size, 8 vectors read in place, the taps beside a vector shifted
// in from its neighbours (valignd) rather than loaded across cache lines;
// a 3x3 window at stride 2 in place too, its taps the even and odd lanes
// of a row's floats (vpermt2ps).
// Compiled with -mavx512f; only called after CPUID (and XGETBV) said the CPU
// and the OS support it. Measured on Zen 4 (W2 at 80% of the FMA peak); its
// results are also tested on machines without AVX-512, under SIMDe's emulation
// (KernelTestsAvx512Emulated).
//
// Channel tiles: 14 pixels x 2 vectors of 16 output channels, 28 zmm
// accumulators fed per tap by 2 weight loads and 14 broadcasts, or 7 pixels
// (images of 7x7: ResNet's last layers). On Zen 5 (batch 8, one thread,
// the fastest of 5 alternating runs), ResNet-18's 3x3 layers of 14x14 ran
// 8% faster than with the 12-pixel tiles before, its 7x7 ones 11% with the
// 7-pixel tiles (the last of 5 tiles of 12 held 1 pixel of 49), which also
// beat tiles of 8 and 14 there.
//
//===----------------------------------------------------------------------===//

#include "Avx512Intrinsics.h"
#include "EpilogueAvx512.h"
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
constexpr int CV = 2;
constexpr int PT = 14;
constexpr int PTN = 7;

inline Vec vzero() { return _mm512_setzero_ps(); }
inline Vec vload(const float *p) { return _mm512_loadu_ps(p); }
inline void vstore(float *p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec vbroadcast(const float *p) { return _mm512_set1_ps(*p); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec vadd(Vec a, Vec b) { return _mm512_add_ps(a, b); }

/// The epilogue's activation alone (EpilogueAvx512.h).
inline Vec applyActivationVec(const nn_rt_epilogue &ep, Vec v) {
  return applyActivation16(ep, v);
}
/// nn_rt::applyEpilogue on 16 results of one row (EpilogueAvx512.h).
inline Vec applyEpilogueVec(const nn_rt_epilogue &ep, Vec v, int64_t m,
                            int64_t n0) {
  return applyEpilogue16(ep, v, m, n0);
}

/// The first `lanes` (< VL) lanes of a vector, as a mask.
using Lanes = __mmask16;
inline Lanes firstLanes(int64_t lanes) {
  return static_cast<__mmask16>((1u << lanes) - 1);
}
inline void vstoreLanes(float *p, Vec v, Lanes mask) {
  _mm512_mask_storeu_ps(p, mask, v);
}
inline Vec applyEpilogueLanes(const nn_rt_epilogue &ep, Vec v, int64_t m,
                              int64_t n0, Lanes mask) {
  return applyEpilogue16(ep, v, m, n0, mask);
}

/// The lanes `keep` of v moved, in order, to its front: a joined vector's
/// pixels of two rows made consecutive (DirectConvImpl.h's VectorWalk).
#define NN_DIRECT_JOIN_ROWS 1
inline Vec compressLanes(Vec v, Lanes keep) {
  return _mm512_maskz_compress_ps(keep, v);
}

/// The lanes l with lo <= l < hi (DirectConvImpl.h's fillPhaseRow).
inline Lanes lanesBetween(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo;
  hi = hi > VL ? VL : hi;
  return hi <= lo ? 0 : static_cast<Lanes>((1u << hi) - (1u << lo));
}
/// The lanes whose bits are set (bit l: lane l).
inline Lanes lanesFromBits(uint32_t bits) { return static_cast<Lanes>(bits); }
/// Lanes N ... N + VL - 1 of the 2 VL floats of lo then hi, those not in
/// `keep` zero (DirectConvImpl.h's samePlaneShifted).
#define NN_DIRECT_SHIFT_LANES 1
template <int N> inline Vec shiftLanes(Vec lo, Vec hi, Lanes keep) {
  return _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(
      keep, _mm512_castps_si512(hi), _mm512_castps_si512(lo), N));
}
/// The lanes `mask` of p[0, VL), the others zero and never read (a masked
/// load does not fault on them). Never called with no lane: on Zen 5 a
/// masked load of no lane took ten times a whole vector's.
inline Vec vloadLanes(const float *p, Lanes mask) {
  return _mm512_maskz_loadu_ps(mask, p);
}
/// Lanes 0, 2, 4, ... of a then b: every second float of a[0, 2 VL).
inline Vec evenLanes(Vec a, Vec b) {
  return _mm512_permutex2var_ps(a,
                                _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16,
                                                  18, 20, 22, 24, 26, 28, 30),
                                b);
}
/// Lanes 1, 3, 5, ... of a then b.
inline Vec oddLanes(Vec a, Vec b) {
  return _mm512_permutex2var_ps(a,
                                _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17,
                                                  19, 21, 23, 25, 27, 29, 31),
                                b);
}

} // namespace

#include "DirectConvImpl.h"
