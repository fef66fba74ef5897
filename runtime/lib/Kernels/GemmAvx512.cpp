//===- GemmAvx512.cpp - The AVX-512 SGEMM (12 x 32 register tile) ---------===//
//
// 24 zmm accumulators (12 rows x 2 vectors of 16), 2 B loads and 12
// broadcasts per k. Compiled with -mavx512f; only called after CPUID (and
// XGETBV) said the CPU and the OS support it. Written on an AVX2-only
// machine: its results are tested there under SIMDe's emulation of AVX-512
// (KernelTestsAvx512Emulated, Avx512Intrinsics.h), its speed nowhere yet.
//
//===----------------------------------------------------------------------===//

#include "Avx512Intrinsics.h"
#include "KernelsInternal.h"

#define NN_GEMM_NAMESPACE avx512

namespace {

constexpr int64_t MR = 12;
constexpr int64_t NR = 32;

void storeTile(const nn_rt::GemmArgs &g, const float *acc, float *C,
               int64_t m0, int64_t n0, int64_t rows, int64_t cols, bool loadC,
               bool last);

/// dst[k * NR + c] = src[c * ld + k]: one panel of a transposed B (the
/// AVX2 file transposes in registers; not done here for lack of a machine
/// to test it on).
inline void packTransposedPanel(const float *src, int64_t ld, int64_t kc,
                                float *dst) {
  for (int64_t c = 0; c < NR; ++c)
    for (int64_t k = 0; k < kc; ++k)
      dst[k * NR + c] = src[c * ld + k];
}

/// dst[k * MR + r] = src[r * ld + k]: one full panel of a row-major A
/// (in registers on AVX2; scalar here, for the same reason).
inline void packAPanel(const float *src, int64_t ld, int64_t kc, float *dst) {
  for (int64_t r = 0; r < MR; ++r)
    for (int64_t k = 0; k < kc; ++k)
      dst[k * MR + r] = src[r * ld + k];
}

inline void microKernel(const nn_rt::GemmArgs &g, int64_t kc, const float *Ap,
                        const float *Bp, float *C, int64_t m0, int64_t n0,
                        int64_t rows, int64_t cols, bool loadC, bool last) {
  __m512 acc[MR][2];
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r)
    acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; ++k) {
    __m512 b0 = _mm512_load_ps(Bp), b1 = _mm512_load_ps(Bp + 16);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
      __m512 a = _mm512_set1_ps(Ap[r]);
      acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
    }
    Ap += MR;
    Bp += NR;
  }
  alignas(64) float tile[MR * NR];
#pragma GCC unroll 12
  for (int r = 0; r < MR; ++r) {
    _mm512_store_ps(tile + r * NR, acc[r][0]);
    _mm512_store_ps(tile + r * NR + 16, acc[r][1]);
  }
  storeTile(g, tile, C, m0, n0, rows, cols, loadC, last);
}

} // namespace

#include "GemmImpl.h"
