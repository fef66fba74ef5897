//===- GemmAvx2.cpp - The AVX2 + FMA SGEMM (6 x 16 register tile) ---------===//
//
// 12 ymm accumulators (6 rows x 2 vectors of 8), 2 B loads and 6 broadcasts
// per k: 12 FMAs against 8 loads, inside Zen 3's and Haswell's 2 FMA + 2-3
// load ports. Compiled with -mavx2 -mfma; only called after CPUID said so.
//
//===----------------------------------------------------------------------===//

#include "EpilogueAvx2.h"

#include <immintrin.h>

#define NN_GEMM_NAMESPACE avx2

namespace {

constexpr int64_t MR = 6;
constexpr int64_t NR = 16;

/// sgemm's blocks. The micro-kernel's fixed cost per call (its C loads and
/// stores, mostly L3 misses once C outgrows L2, and C is swept once per K
/// block) is what a longer K block amortizes: on Zen 3, 1024^3 went from
/// 85% of the FMA peak at KC = 256 to 88.7% at 512 (91% at 1024, but then
/// the B micro-panel, KC x NR, no longer fits L1 beside A). The A block
/// keeps KC x MC = 144 KiB of L2 and the B panel 4 MiB of L3.
constexpr int64_t kGemmKC = 512, kGemmMC = MR * 12, kGemmNC = 2048 / NR * NR;

void storeTile(const nn_rt::GemmArgs &g, const float *acc, float *C, int64_t m0,
               int64_t n0, int64_t rows, int64_t cols, bool loadC, bool last);

/// Transposes the 8 x 8 block r[0..7] in registers: r[i][j] becomes r[j][i].
inline void transpose8x8(__m256 r[8]) {
  __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]),
         t1 = _mm256_unpackhi_ps(r[0], r[1]);
  __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]),
         t3 = _mm256_unpackhi_ps(r[2], r[3]);
  __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]),
         t5 = _mm256_unpackhi_ps(r[4], r[5]);
  __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]),
         t7 = _mm256_unpackhi_ps(r[6], r[7]);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

/// dst[k * NR + c] = src[c * ld + k] for the NR = 16 columns c and k < kc:
/// one panel of a transposed B (nn.linear's weight, rows of `ld` floats),
/// moved in 8 x 8 blocks transposed in registers instead of one float at a
/// time (the scalar loop made packing half of W1's time).
inline void packTransposedPanel(const float *src, int64_t ld, int64_t kc,
                                float *dst) {
  int64_t k = 0;
  for (; k + 8 <= kc; k += 8) {
    for (int half = 0; half < 2; ++half) {
      const float *s = src + half * 8 * ld + k;
      __m256 r[8];
      for (int i = 0; i < 8; ++i)
        r[i] = _mm256_loadu_ps(s + i * ld);
      transpose8x8(r);
      float *d = dst + k * NR + half * 8;
      for (int i = 0; i < 8; ++i)
        _mm256_storeu_ps(d + i * NR, r[i]);
    }
  }
  for (; k < kc; ++k)
    for (int64_t c = 0; c < NR; ++c)
      dst[k * NR + c] = src[c * ld + k];
}

/// dst[k * MR + r] = src[r * ld + k] for the MR = 6 rows r and k < kc: one
/// full panel of a row-major A, 8 k at a time transposed in registers (the
/// scalar loop, 4 cycles a float, was 5% of a 1024^3 GEMM on 1 thread).
/// Column k + i of the block is 8 floats, the last 2 zero padding; each is
/// stored whole and the next store overwrites the padding, except the
/// block's last, stored masked so nothing is written past dst[(k + 8) * MR].
inline void packAPanel(const float *src, int64_t ld, int64_t kc, float *dst) {
  const __m256i firstSix = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
  int64_t k = 0;
  for (; k + 8 <= kc; k += 8) {
    __m256 r[8];
    for (int i = 0; i < MR; ++i)
      r[i] = _mm256_loadu_ps(src + i * ld + k);
    r[6] = r[7] = _mm256_setzero_ps();
    transpose8x8(r);
    float *d = dst + k * MR;
    for (int i = 0; i < 7; ++i)
      _mm256_storeu_ps(d + i * MR, r[i]);
    _mm256_maskstore_ps(d + 7 * MR, firstSix, r[7]);
  }
  for (; k < kc; ++k)
    for (int64_t i = 0; i < MR; ++i)
      dst[k * MR + i] = src[i * ld + k];
}

/// The lanes i < n of a vector of 8 (n may be <= 0 or >= 8).
inline __m256i firstLanes(int64_t n) {
  int lanes = n < 0 ? 0 : n > 8 ? 8 : int(n);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/// C[0:Rows, 0:cols] (+)= A x Bp over kc, with the epilogue when `last`.
/// A(r, k) is a[k * MR + r] in a packed micro-panel (packA) or, with
/// InPlaceA, a[r * lda + k] in a row-major A. Rows is the tile's true row
/// count, so the last row tile of M (64 = 10 x 6 + 4) costs 8 FMAs per k,
/// not 12, and an in-place A is never read past its last row. Only the
/// operand addresses differ between the instances: every C element is the
/// same FMA sequence, so results do not depend on which one ran.
template <int Rows, bool InPlaceA>
inline void microTile(const nn_rt::GemmArgs &g, int64_t kc, const float *a,
                      int64_t lda, const float *Bp, float *C, int64_t m0,
                      int64_t n0, int64_t cols, bool loadC, bool last) {
  // The tile of C is read (or written) after the loop: start fetching it.
  for (int r = 0; r < Rows; ++r) {
    _mm_prefetch(reinterpret_cast<const char *>(C + r * g.rsC), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(C + r * g.rsC + NR - 1),
                 _MM_HINT_T0);
  }
  // acc stays in registers only if no loop indexes it with a run-time row:
  // every loop over its rows is unrolled by pragma, not left to GCC's size
  // heuristics. Without the pragmas, forcing applyEpilogue8 inline made the
  // masked store loop too big to unroll, so acc lived on the stack and every
  // FMA of the k loop stored its result there (W1 3x slower).
  __m256 acc[Rows][2];
#pragma GCC unroll 6
  for (int r = 0; r < Rows; ++r)
    acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  // In place, rows 3.. are read from a second pointer, so that every
  // broadcast is one of [a0 or a3] + lda * {0, 4, 8} bytes.
  const float *a3 = InPlaceA && Rows > 3 ? a + 3 * lda : a;
  // One k per iteration: unrolling by hand makes GCC 12 spill accumulators.
  for (int64_t k = 0; k < kc; ++k) {
    __m256 b0 = _mm256_load_ps(Bp), b1 = _mm256_load_ps(Bp + 8);
#pragma GCC unroll 6
    for (int r = 0; r < Rows; ++r) {
      const float *ar = a + r;
      if (InPlaceA)
        ar = r < 3 ? a + r * lda : a3 + (r - 3) * lda;
      __m256 ab = _mm256_broadcast_ss(ar);
      acc[r][0] = _mm256_fmadd_ps(ab, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(ab, b1, acc[r][1]);
    }
    a += InPlaceA ? 1 : MR;
    a3 += InPlaceA ? 1 : 0;
    Bp += NR;
  }

  if (!last || vectorEpilogue(g.ep)) {
    if (cols == NR) {
#pragma GCC unroll 6
      for (int r = 0; r < Rows; ++r) {
        float *c = C + r * g.rsC;
        __m256 v0 = acc[r][0], v1 = acc[r][1];
        if (loadC) {
          v0 = _mm256_add_ps(v0, _mm256_loadu_ps(c));
          v1 = _mm256_add_ps(v1, _mm256_loadu_ps(c + 8));
        }
        if (last) {
          v0 = applyEpilogue8(g.ep, v0, m0 + r, n0);
          v1 = applyEpilogue8(g.ep, v1, m0 + r, n0 + 8);
        }
        _mm256_storeu_ps(c, v0);
        _mm256_storeu_ps(c + 8, v1);
      }
      return;
    }
    // A partial column tile (N = 10 of W1's last layer): masked loads and
    // stores touch only C's cols columns (and the addends' same columns).
    const __m256i mask0 = firstLanes(cols), mask1 = firstLanes(cols - 8);
#pragma GCC unroll 6
    for (int r = 0; r < Rows; ++r) {
      float *c = C + r * g.rsC;
      __m256 v0 = acc[r][0];
      if (loadC)
        v0 = _mm256_add_ps(v0, _mm256_maskload_ps(c, mask0));
      if (last)
        v0 = applyEpilogue8(g.ep, v0, m0 + r, n0, mask0);
      _mm256_maskstore_ps(c, mask0, v0);
      if (cols <= 8)
        continue;
      __m256 v1 = acc[r][1];
      if (loadC)
        v1 = _mm256_add_ps(v1, _mm256_maskload_ps(c + 8, mask1));
      if (last)
        v1 = applyEpilogue8(g.ep, v1, m0 + r, n0 + 8, mask1);
      _mm256_maskstore_ps(c + 8, mask1, v1);
    }
    return;
  }
  // Strided addends: the scalar epilogue.
  alignas(32) float tile[MR * NR];
#pragma GCC unroll 6
  for (int r = 0; r < Rows; ++r) {
    _mm256_store_ps(tile + r * NR, acc[r][0]);
    _mm256_store_ps(tile + r * NR + 8, acc[r][1]);
  }
  storeTile(g, tile, C, m0, n0, Rows, cols, loadC, last);
}

/// microTile for 1 <= rows <= MR: GemmImpl.h's micro-kernel, A packed
/// (lda = MR) or, with InPlaceA, read in place.
template <bool InPlaceA>
inline void microKernelRows(const nn_rt::GemmArgs &g, int64_t kc,
                            const float *a, int64_t lda, const float *Bp,
                            float *C, int64_t m0, int64_t n0, int64_t rows,
                            int64_t cols, bool loadC, bool last) {
  switch (rows) {
  case 6:
    return microTile<6, InPlaceA>(g, kc, a, lda, Bp, C, m0, n0, cols, loadC,
                                  last);
  case 5:
    return microTile<5, InPlaceA>(g, kc, a, lda, Bp, C, m0, n0, cols, loadC,
                                  last);
  case 4:
    return microTile<4, InPlaceA>(g, kc, a, lda, Bp, C, m0, n0, cols, loadC,
                                  last);
  case 3:
    return microTile<3, InPlaceA>(g, kc, a, lda, Bp, C, m0, n0, cols, loadC,
                                  last);
  case 2:
    return microTile<2, InPlaceA>(g, kc, a, lda, Bp, C, m0, n0, cols, loadC,
                                  last);
  default:
    return microTile<1, InPlaceA>(g, kc, a, lda, Bp, C, m0, n0, cols, loadC,
                                  last);
  }
}

} // namespace

#include "GemmImpl.h"
