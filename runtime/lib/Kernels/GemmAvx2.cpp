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

void storeTile(const nn_rt::GemmArgs &g, const float *acc, float *C,
               int64_t m0, int64_t n0, int64_t rows, int64_t cols, bool loadC,
               bool last);

/// Transposes the 8 x 8 block r[0..7] in registers: r[i][j] becomes r[j][i].
inline void transpose8x8(__m256 r[8]) {
  __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
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

/// nn_rt::applyEpilogue on C[m, n0:n0+16] held in v0, v1.
inline void applyEpilogue8x2(const nn_rt_epilogue &ep, __m256 &v0, __m256 &v1,
                             int64_t m, int64_t n0) {
  v0 = applyEpilogue8(ep, v0, m, n0);
  v1 = applyEpilogue8(ep, v1, m, n0 + 8);
}

/// C[0:rows, 0:cols] (+)= Ap x Bp over kc, with the epilogue when `last`.
inline void microKernel(const nn_rt::GemmArgs &g, int64_t kc, const float *Ap,
                        const float *Bp, float *C, int64_t m0, int64_t n0,
                        int64_t rows, int64_t cols, bool loadC, bool last) {
  // The tile of C is read (or written) after the loop: start fetching it.
  for (int64_t r = 0; r < rows; ++r) {
    _mm_prefetch(reinterpret_cast<const char *>(C + r * g.rsC), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(C + r * g.rsC + NR - 1),
                 _MM_HINT_T0);
  }
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
#define NN_STEP(off)                                                           \
  do {                                                                         \
    const float *a = Ap + (off) * MR;                                          \
    __m256 b0 = _mm256_load_ps(Bp + (off) * NR);                               \
    __m256 b1 = _mm256_load_ps(Bp + (off) * NR + 8);                           \
    __m256 a0 = _mm256_broadcast_ss(a + 0);                                    \
    __m256 a1 = _mm256_broadcast_ss(a + 1);                                    \
    c00 = _mm256_fmadd_ps(a0, b0, c00);                                        \
    c01 = _mm256_fmadd_ps(a0, b1, c01);                                        \
    c10 = _mm256_fmadd_ps(a1, b0, c10);                                        \
    c11 = _mm256_fmadd_ps(a1, b1, c11);                                        \
    a0 = _mm256_broadcast_ss(a + 2);                                           \
    a1 = _mm256_broadcast_ss(a + 3);                                           \
    c20 = _mm256_fmadd_ps(a0, b0, c20);                                        \
    c21 = _mm256_fmadd_ps(a0, b1, c21);                                        \
    c30 = _mm256_fmadd_ps(a1, b0, c30);                                        \
    c31 = _mm256_fmadd_ps(a1, b1, c31);                                        \
    a0 = _mm256_broadcast_ss(a + 4);                                           \
    a1 = _mm256_broadcast_ss(a + 5);                                           \
    c40 = _mm256_fmadd_ps(a0, b0, c40);                                        \
    c41 = _mm256_fmadd_ps(a0, b1, c41);                                        \
    c50 = _mm256_fmadd_ps(a1, b0, c50);                                        \
    c51 = _mm256_fmadd_ps(a1, b1, c51);                                        \
  } while (0)
  // One k per iteration: unrolling by hand makes GCC 12 spill accumulators.
  for (int64_t k = 0; k < kc; ++k) {
    NN_STEP(0);
    Ap += MR;
    Bp += NR;
  }
#undef NN_STEP

  __m256 acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21},
                       {c30, c31}, {c40, c41}, {c50, c51}};
  if (cols == NR && (!last || vectorEpilogue(g.ep))) {
    auto storeRow = [&](int r) {
      float *c = C + r * g.rsC;
      __m256 v0 = acc[r][0], v1 = acc[r][1];
      if (loadC) {
        v0 = _mm256_add_ps(v0, _mm256_loadu_ps(c));
        v1 = _mm256_add_ps(v1, _mm256_loadu_ps(c + 8));
      }
      if (last)
        applyEpilogue8x2(g.ep, v0, v1, m0 + r, n0);
      _mm256_storeu_ps(c, v0);
      _mm256_storeu_ps(c + 8, v1);
    };
    // Full tiles unrolled; the last rows of M (64 = 10 x 6 + 4 channels)
    // still get vector stores.
    if (rows == MR)
      for (int r = 0; r < MR; ++r)
        storeRow(r);
    else
      for (int r = 0; r < rows; ++r)
        storeRow(r);
    return;
  }
  alignas(32) float tile[MR * NR];
  for (int r = 0; r < MR; ++r) {
    _mm256_store_ps(tile + r * NR, acc[r][0]);
    _mm256_store_ps(tile + r * NR + 8, acc[r][1]);
  }
  storeTile(g, tile, C, m0, n0, rows, cols, loadC, last);
}

} // namespace

#include "GemmImpl.h"
