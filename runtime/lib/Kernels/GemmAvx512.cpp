//===- GemmAvx512.cpp - The AVX-512 SGEMM (12 x 32 register tile) ---------===//
//
// 24 zmm accumulators (12 rows x 2 vectors of 16), 2 B loads and 12
// broadcasts per k. Compiled with -mavx512f; only called after CPUID (and
// XGETBV) said the CPU and the OS support it. Its results are also tested
// on machines without AVX-512, under SIMDe's emulation
// (KernelTestsAvx512Emulated, Avx512Intrinsics.h); its blocks were chosen
// on Zen 5.
//
//===----------------------------------------------------------------------===//

#include "Avx512Intrinsics.h"
#include "EpilogueAvx512.h"
#include "KernelsInternal.h"

// GCC 12's unpack and 128-bit lane shuffles pass a deliberately undefined
// vector as the unused merge source, which -Wmaybe-uninitialized reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define NN_GEMM_NAMESPACE avx512

namespace {

constexpr int64_t MR = 12;
constexpr int64_t NR = 32;

/// sgemm's blocks. K blocks of 1024 sweep C once where K <= 1024 (twice at
/// 512) and call the micro-kernel half as often; the B micro-panel (128
/// KiB) then streams from L2 instead of L1, which the 12 x 32 tile's 2 B
/// loads per 24 FMAs afford. On Zen 5, one thread, in one process with the
/// old blocks alternating (min of 25 calls): 1024^3 179 -> 192 GFLOP/s
/// (78 -> 84% of the FMA peak), 1576 x 768 x 768 (ViT-B/16's projections
/// at batch 8) 193 -> 207, 1576 x 768 x 3072 186 -> 199; K = 256 within
/// 1.5%. The A block (72 rows) keeps KC x MC = 288 KiB of L2 and the B
/// panel (1024 columns) 4 MiB of L3, as the old 512 x 144 and 512 x 2048.
constexpr int64_t kGemmKC = 1024, kGemmMC = MR * 6, kGemmNC = 1024 / NR * NR;

void storeTile(const nn_rt::GemmArgs &g, const float *acc, float *C, int64_t m0,
               int64_t n0, int64_t rows, int64_t cols, bool loadC, bool last);

/// Transposes the 16 x 16 block r[0..15] in registers: r[i][j] becomes
/// r[j][i]. Within each 128-bit lane, unpack and shuffle leave u[4a + q]
/// holding column 4l + q of rows 4a..4a+3 in lane l; two rounds of 128-bit
/// lane shuffles then gather column 4l + q's four row groups.
inline void transpose16x16(__m512 r[16]) {
  __m512 t[16], u[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int a = 0; a < 4; ++a) {
    __m512 lo0 = t[4 * a], hi0 = t[4 * a + 1];
    __m512 lo1 = t[4 * a + 2], hi1 = t[4 * a + 3];
    u[4 * a] = _mm512_shuffle_ps(lo0, lo1, _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * a + 1] = _mm512_shuffle_ps(lo0, lo1, _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * a + 2] = _mm512_shuffle_ps(hi0, hi1, _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * a + 3] = _mm512_shuffle_ps(hi0, hi1, _MM_SHUFFLE(3, 2, 3, 2));
  }
  // 0x88 takes lanes (0, 2) of each source, 0xdd lanes (1, 3).
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    __m512 x0 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x88);
    __m512 x1 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xdd);
    __m512 x2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x88);
    __m512 x3 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xdd);
    r[q] = _mm512_shuffle_f32x4(x0, x2, 0x88);
    r[4 + q] = _mm512_shuffle_f32x4(x1, x3, 0x88);
    r[8 + q] = _mm512_shuffle_f32x4(x0, x2, 0xdd);
    r[12 + q] = _mm512_shuffle_f32x4(x1, x3, 0xdd);
  }
}

/// dst[k * NR + c] = src[c * ld + k] for the NR = 32 columns c and k < kc:
/// one panel of a transposed B (nn.linear's weight, rows of `ld` floats),
/// moved in 16 x 16 blocks transposed in registers, as the AVX2 file does
/// in 8 x 8 blocks (its scalar loop made packing half of W1's time).
inline void packTransposedPanel(const float *src, int64_t ld, int64_t kc,
                                float *dst) {
  int64_t k = 0;
  for (; k + 16 <= kc; k += 16) {
    for (int half = 0; half < 2; ++half) {
      const float *s = src + half * 16 * ld + k;
      __m512 r[16];
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i)
        r[i] = _mm512_loadu_ps(s + i * ld);
      transpose16x16(r);
      float *d = dst + k * NR + half * 16;
#pragma GCC unroll 16
      for (int i = 0; i < 16; ++i)
        _mm512_storeu_ps(d + i * NR, r[i]);
    }
  }
  for (; k < kc; ++k)
    for (int64_t c = 0; c < NR; ++c)
      dst[k * NR + c] = src[c * ld + k];
}

/// dst[k * MR + r] = src[r * ld + k] for the MR = 12 rows r and k < kc: one
/// full panel of a row-major A, 16 k at a time transposed in registers.
/// Column k + i of the block is 16 floats, the last 4 zero padding; each is
/// stored whole and the next store overwrites the padding, except the
/// block's last, stored masked so nothing is written past dst[(k + 16) * MR].
inline void packAPanel(const float *src, int64_t ld, int64_t kc, float *dst) {
  constexpr __mmask16 firstTwelve = 0x0fff;
  int64_t k = 0;
  for (; k + 16 <= kc; k += 16) {
    __m512 r[16];
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i)
      r[i] = _mm512_loadu_ps(src + i * ld + k);
#pragma GCC unroll 4
    for (int i = MR; i < 16; ++i)
      r[i] = _mm512_setzero_ps();
    transpose16x16(r);
    float *d = dst + k * MR;
#pragma GCC unroll 15
    for (int i = 0; i < 15; ++i)
      _mm512_storeu_ps(d + i * MR, r[i]);
    _mm512_mask_storeu_ps(d + 15 * MR, firstTwelve, r[15]);
  }
  for (; k < kc; ++k)
    for (int64_t i = 0; i < MR; ++i)
      dst[k * MR + i] = src[i * ld + k];
}

/// C[0:Rows, 0:cols] (+)= A x Bp over kc. A(r, k) is a[k * MR + r] in a
/// packed micro-panel (packA) or, with InPlaceA, a[r * lda + k] in a
/// row-major A. Rows is the tile's true row count, so the last row tile of
/// M costs what its rows need: 64 rows are 5 x 12 + 4, 8 FMAs per k for the
/// last instead of 24, which had made a GEMM of 64 rows (W1's batch, a
/// weight gradient's output channels, 1x1 convolutions of 16, 32 or 64
/// channels) do 72 rows' work; and an in-place A is never read past its
/// last row. Only the operand addresses differ between the instances:
/// every C element is the same FMA sequence, so results do not depend on
/// which one ran.
template <int Rows, bool InPlaceA>
inline void microTile(const nn_rt::GemmArgs &g, int64_t kc, const float *a,
                      int64_t lda, const float *Bp, float *C, int64_t m0,
                      int64_t n0, int64_t cols, bool loadC, bool last) {
  __m512 acc[Rows][2];
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r)
    acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  // In place, rows are read from four pointers three rows apart, so that
  // every broadcast is one of them + lda * {0, 4, 8} bytes.
  const float *rowGroup[4] = {a, a, a, a};
  if (InPlaceA)
    for (int q = 1; q < 4; ++q)
      rowGroup[q] = Rows > 3 * q ? a + 3 * q * lda : a;
  for (int64_t k = 0; k < kc; ++k) {
    __m512 b0 = _mm512_load_ps(Bp), b1 = _mm512_load_ps(Bp + 16);
#pragma GCC unroll 12
    for (int r = 0; r < Rows; ++r) {
      const float *ar = InPlaceA ? rowGroup[r / 3] + (r % 3) * lda : a + r;
      __m512 av = _mm512_set1_ps(*ar);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
    if (InPlaceA) {
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q)
        ++rowGroup[q];
    } else {
      a += MR;
    }
    Bp += NR;
  }
  if (!last || vectorEpilogue(g.ep)) {
    // Masks select a partial tile's columns (N = 10 of W1's last layer);
    // loads and stores touch no other column of C or of the addends.
    const __mmask16 mask0 = cols >= 16 ? 0xffff : (1u << cols) - 1;
    const __mmask16 mask1 = cols >= NR  ? 0xffff
                            : cols > 16 ? (1u << (cols - 16)) - 1
                                        : 0;
#pragma GCC unroll 12
    for (int r = 0; r < Rows; ++r) {
      float *c = C + r * g.rsC;
      __m512 v0 = acc[r][0], v1 = acc[r][1];
      if (loadC)
        v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(mask0, c));
      if (last)
        v0 = applyEpilogue16(g.ep, v0, m0 + r, n0, mask0);
      _mm512_mask_storeu_ps(c, mask0, v0);
      // A tile of 16 columns or fewer touches no second vector: not even by
      // a load or store of no lane, which took ten times a whole vector's
      // on Zen 5.
      if (!mask1)
        continue;
      if (loadC)
        v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(mask1, c + 16));
      if (last)
        v1 = applyEpilogue16(g.ep, v1, m0 + r, n0 + 16, mask1);
      _mm512_mask_storeu_ps(c + 16, mask1, v1);
    }
    return;
  }
  // Strided addends: the scalar epilogue.
  alignas(64) float tile[Rows * NR];
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    _mm512_store_ps(tile + r * NR, acc[r][0]);
    _mm512_store_ps(tile + r * NR + 16, acc[r][1]);
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
  using Tile =
      void (*)(const nn_rt::GemmArgs &, int64_t, const float *, int64_t,
               const float *, float *, int64_t, int64_t, int64_t, bool, bool);
  static constexpr Tile tiles[MR] = {
      microTile<1, InPlaceA>,  microTile<2, InPlaceA>,
      microTile<3, InPlaceA>,  microTile<4, InPlaceA>,
      microTile<5, InPlaceA>,  microTile<6, InPlaceA>,
      microTile<7, InPlaceA>,  microTile<8, InPlaceA>,
      microTile<9, InPlaceA>,  microTile<10, InPlaceA>,
      microTile<11, InPlaceA>, microTile<12, InPlaceA>};
  if (rows == MR) // the steady state: a direct, inlinable call
    return microTile<MR, InPlaceA>(g, kc, a, lda, Bp, C, m0, n0, cols, loadC,
                                   last);
  tiles[rows - 1](g, kc, a, lda, Bp, C, m0, n0, cols, loadC, last);
}

} // namespace

#include "GemmImpl.h"
