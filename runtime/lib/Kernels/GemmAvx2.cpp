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
      __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + ld);
      __m256 r2 = _mm256_loadu_ps(s + 2 * ld), r3 = _mm256_loadu_ps(s + 3 * ld);
      __m256 r4 = _mm256_loadu_ps(s + 4 * ld), r5 = _mm256_loadu_ps(s + 5 * ld);
      __m256 r6 = _mm256_loadu_ps(s + 6 * ld), r7 = _mm256_loadu_ps(s + 7 * ld);
      __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
      __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
      __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
      __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
      __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
      __m256 u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
      __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
      __m256 u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
      __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
      __m256 u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
      __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
      __m256 u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
      float *d = dst + k * NR + half * 8;
      _mm256_storeu_ps(d + 0 * NR, _mm256_permute2f128_ps(u0, u4, 0x20));
      _mm256_storeu_ps(d + 1 * NR, _mm256_permute2f128_ps(u1, u5, 0x20));
      _mm256_storeu_ps(d + 2 * NR, _mm256_permute2f128_ps(u2, u6, 0x20));
      _mm256_storeu_ps(d + 3 * NR, _mm256_permute2f128_ps(u3, u7, 0x20));
      _mm256_storeu_ps(d + 4 * NR, _mm256_permute2f128_ps(u0, u4, 0x31));
      _mm256_storeu_ps(d + 5 * NR, _mm256_permute2f128_ps(u1, u5, 0x31));
      _mm256_storeu_ps(d + 6 * NR, _mm256_permute2f128_ps(u2, u6, 0x31));
      _mm256_storeu_ps(d + 7 * NR, _mm256_permute2f128_ps(u3, u7, 0x31));
    }
  }
  for (; k < kc; ++k)
    for (int64_t c = 0; c < NR; ++c)
      dst[k * NR + c] = src[c * ld + k];
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
