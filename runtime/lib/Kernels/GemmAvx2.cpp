//===- GemmAvx2.cpp - The AVX2 + FMA SGEMM (6 x 16 register tile) ---------===//
//
// 12 ymm accumulators (6 rows x 2 vectors of 8), 2 B loads and 6 broadcasts
// per k: 12 FMAs against 8 loads, inside Zen 3's and Haswell's 2 FMA + 2-3
// load ports. Compiled with -mavx2 -mfma; only called after CPUID said so.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <immintrin.h>

#define NN_GEMM_NAMESPACE avx2

namespace {

constexpr int64_t MR = 6;
constexpr int64_t NR = 16;

void storeTile(const nn_rt::GemmArgs &g, const float *acc, float *C,
               int64_t m0, int64_t n0, int64_t rows, int64_t cols, bool loadC,
               bool last);

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
  bool colBias = last && g.bias && g.bsM == 0 && g.bsN == 1;
  bool rowBias = last && g.bias && g.bsN == 0;
  if (rows == MR && cols == NR && (!last || !g.bias || colBias || rowBias)) {
    __m256 bias0 = _mm256_setzero_ps(), bias1 = _mm256_setzero_ps();
    if (colBias) {
      bias0 = _mm256_loadu_ps(g.bias + n0);
      bias1 = _mm256_loadu_ps(g.bias + n0 + 8);
    }
    bool relu = last && g.activation == NN_RT_ACT_RELU;
    const __m256 zero = _mm256_setzero_ps();
    for (int r = 0; r < MR; ++r) {
      float *c = C + r * g.rsC;
      __m256 v0 = acc[r][0], v1 = acc[r][1];
      if (loadC) {
        v0 = _mm256_add_ps(v0, _mm256_loadu_ps(c));
        v1 = _mm256_add_ps(v1, _mm256_loadu_ps(c + 8));
      }
      if (colBias) {
        v0 = _mm256_add_ps(v0, bias0);
        v1 = _mm256_add_ps(v1, bias1);
      } else if (rowBias) {
        __m256 b = _mm256_set1_ps(g.bias[(m0 + r) * g.bsM]);
        v0 = _mm256_add_ps(v0, b);
        v1 = _mm256_add_ps(v1, b);
      }
      if (relu) {
        v0 = _mm256_max_ps(v0, zero);
        v1 = _mm256_max_ps(v1, zero);
      }
      _mm256_storeu_ps(c, v0);
      _mm256_storeu_ps(c + 8, v1);
    }
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
