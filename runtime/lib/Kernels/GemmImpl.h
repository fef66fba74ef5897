//===- GemmImpl.h - Packed, register-tiled SGEMM for one ISA ----*- C++ -*-===//
//
// The BLIS loop nest (Goto & van de Geijn, "Anatomy of High-Performance
// Matrix Multiplication"), included once per instruction set by
// GemmAvx2.cpp and GemmAvx512.cpp, each compiled with that ISA's flags. The
// including file defines NN_GEMM_NAMESPACE, the vector type and helpers (see
// GemmAvx2.cpp), MR x NR (the register tile), kGemmKC, kGemmMC and
// kGemmNC (sgemm's blocks, with their reasons), the micro-kernel
// (microKernelRows<InPlaceA>: any row count up to MR, A packed or read in
// place) and packTransposedPanel; everything here has internal
// linkage so the two copies never meet at link time (an AVX-512 inline
// function picked for the AVX2 path would fault).
//
//   for jc in N step NC:              B panel  KC x NC   (L3; L2 for conv)
//     for pc in K step KC:            pack B -> [NC/NR][KC][NR]  (or read
//                                     the B packed once for all threads)
//       for ic in M step MC:          pack A -> [MC/MR][KC][MR]  (L2;
//                                     conv: weights packed once per call)
//         for jr in NC step NR:       B micro-panel               (L1)
//           for ir in MC step MR:     MR x NR accumulators in registers
//
// A GEMM whose rows all fit one M block (W1's batch of 64) reads A in place,
// with no packing pass: the packed block would be re-read from L2 by every
// column panel just as A is, and once B is packed at bind time A's packing
// is the only one left per call (5% of W1's time on AVX2; on AVX-512, Zen 5,
// W1 took 0.198-0.206 ms with A packed, 0.164-0.179 in place).
//
// (KC, MC, NC are kGemmBlocking for a GEMM, kConvBlocking for a convolution.)
//
// B comes from a strided matrix or, for convolution, from an image whose
// im2col columns are gathered while packing. The epilogue (accumulate into
// C, addends, activation; see nn_rt_epilogue) runs in the store of the last
// K block.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <stdlib.h>
#include <string.h>

namespace {

constexpr int64_t minI(int64_t a, int64_t b) { return a < b ? a : b; }

/// The K, M and N blocks of one GEMM (see the loop nest above).
struct Blocking {
  int64_t kc, mc, nc;
};

/// Convolution's blocks (KC also lays out packAllA, i.e. the packed conv
/// weights). The B panel is an L2 block, see NCConv.
constexpr int64_t KC = 256;
constexpr int64_t MC = MR * 24;
/// Columns per B panel of a convolution: the gathered KC x NCConv panel
/// (256 KiB) and the C block it feeds stay in a 512 KiB L2, so the gather's
/// writes and the micro-kernel's reads of B never go out to L3. The weights
/// (A) are packed once per call (see packWeights), so narrow panels cost no
/// re-packing of A.
constexpr int64_t NCConv = 256 / NR * NR;
constexpr Blocking kConvBlocking{KC, MC, NCConv};

/// sgemm's blocks, the including file's.
constexpr Blocking kGemmBlocking{kGemmKC, kGemmMC, kGemmNC};

constexpr int64_t maxI(int64_t a, int64_t b) { return a > b ? a : b; }
/// The per-thread packing buffers hold a block of either blocking.
constexpr int64_t kPackFloatsA = maxI(kConvBlocking.mc * kConvBlocking.kc,
                                      kGemmBlocking.mc *kGemmBlocking.kc);
constexpr int64_t kPackFloatsB = maxI(kConvBlocking.nc * kConvBlocking.kc,
                                      kGemmBlocking.nc *kGemmBlocking.kc);

inline int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// The calling thread's packing buffers (kept: a compiled model calls the
/// kernels many times, and an mmap + page faults per call would cost more
/// than a small GEMM). A parallel loop over GEMMs sizes them on all its
/// threads first (gemmScratch), so these only allocate on a thread's first
/// serial call.
float *packBufferA() {
  return nn_rt::keptBuffer(nn_rt::Kept::gemmPackA, kPackFloatsA);
}
float *packBufferB() {
  return nn_rt::keptBuffer(nn_rt::Kept::gemmPackB, kPackFloatsB);
}

/// A[m0 + i, k0 + k] -> dst[i / MR][k][i % MR], rows past mc zero.
void packA(const nn_rt::GemmArgs &g, int64_t m0, int64_t mc, int64_t k0,
           int64_t kc, float *dst) {
  for (int64_t ip = 0; ip < mc; ip += MR) {
    int64_t rows = minI(MR, mc - ip);
    const float *src = g.A + (m0 + ip) * g.rsA + k0 * g.csA;
    if (g.csA == 1 && rows == MR) {
      packAPanel(src, g.rsA, kc, dst);
    } else if (g.csA == 1) {
      for (int64_t r = 0; r < rows; ++r) {
        const float *row = src + r * g.rsA;
        for (int64_t k = 0; k < kc; ++k)
          dst[k * MR + r] = row[k];
      }
    } else if (g.rsA == 1 && rows == MR) {
      // A transposed A (a weight gradient's dYᵀ): each k's MR rows are
      // contiguous.
      for (int64_t k = 0; k < kc; ++k)
        memcpy(dst + k * MR, src + k * g.csA, MR * sizeof(float));
    } else {
      for (int64_t k = 0; k < kc; ++k)
        for (int64_t r = 0; r < rows; ++r)
          dst[k * MR + r] = src[r * g.rsA + k * g.csA];
    }
    for (int64_t r = rows; r < MR; ++r)
      for (int64_t k = 0; k < kc; ++k)
        dst[k * MR + r] = 0.f;
    dst += MR * kc;
  }
}

void packBWindows(const nn_rt::GemmArgs &g, int64_t k0, int64_t kc, int64_t n0,
                  int64_t nc, float *dst);

/// B[k0 + k, n0 + j] -> dst[j / NR][k][j % NR], columns past nc zero.
void packBStrided(const nn_rt::GemmArgs &g, int64_t k0, int64_t kc, int64_t n0,
                  int64_t nc, float *dst) {
  if (g.bRowOffsets)
    return packBWindows(g, k0, kc, n0, nc, dst);
  if (g.csB == 1 && nc >= NR) {
    // A row-major B, full panels: 8 rows at a time, each read front to back
    // across all the panels, each panel getting 8 x NR contiguous floats.
    // Going panel by panel instead reads a new row (and, for 1024 columns,
    // a new 4 KiB page) for every NR floats: 1024^2 packed in 252-268 us,
    // against 179-226 us this way (best of 300, alone on one thread).
    constexpr int64_t kRows = 8;
    const int64_t full = nc / NR * NR;
    for (int64_t k = 0; k < kc; k += kRows) {
      const int64_t rows = minI(kRows, kc - k);
      const float *src = g.B + (k0 + k) * g.rsB + n0;
      for (int64_t jp = 0; jp < full; jp += NR) {
        float *d = dst + jp * kc + k * NR;
        for (int64_t r = 0; r < rows; ++r)
          memcpy(d + r * NR, src + r * g.rsB + jp, NR * sizeof(float));
      }
    }
    // A partial last panel: the general case below.
    dst += full * kc;
    n0 += full;
    nc -= full;
  }
  for (int64_t jp = 0; jp < nc; jp += NR) {
    int64_t cols = minI(NR, nc - jp);
    const float *src = g.B + k0 * g.rsB + (n0 + jp) * g.csB;
    if (g.rsB == 1 && cols == NR) {
      // Transposed (nn.linear's weight): the ISA's in-register transpose.
      packTransposedPanel(src, g.csB, kc, dst);
    } else if (g.rsB == 1) {
      // A transposed partial panel: read each column contiguously.
      for (int64_t c = 0; c < cols; ++c) {
        const float *col = src + c * g.csB;
        for (int64_t k = 0; k < kc; ++k)
          dst[k * NR + c] = col[k];
      }
      for (int64_t c = cols; c < NR; ++c)
        for (int64_t k = 0; k < kc; ++k)
          dst[k * NR + c] = 0.f;
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        for (int64_t c = 0; c < cols; ++c)
          dst[k * NR + c] = src[k * g.rsB + c * g.csB];
        for (int64_t c = cols; c < NR; ++c)
          dst[k * NR + c] = 0.f;
      }
    }
    dst += NR * kc;
  }
}

/// packBStrided of a B in windows (GemmArgs::bRowOffsets): a panel within
/// one window packs as that window's strided matrix (the row-major fast
/// path when the window is NR columns or more), one across two element by
/// element. The windows of a convolution's weight gradient overlap in all
/// but a few rows, so a K block's panels read the same rows, from cache.
void packBWindows(const nn_rt::GemmArgs &g, int64_t k0, int64_t kc, int64_t n0,
                  int64_t nc, float *dst) {
  for (int64_t jp = 0; jp < nc; jp += NR) {
    int64_t j = n0 + jp, cols = minI(NR, nc - jp);
    if (j / g.bWindowCols == (j + cols - 1) / g.bWindowCols) {
      nn_rt::GemmArgs window = g;
      window.B = nn_rt::bElement(g, 0, j);
      window.bRowOffsets = nullptr;
      packBStrided(window, k0, kc, 0, cols, dst);
    } else {
      for (int64_t k = 0; k < kc; ++k) {
        for (int64_t c = 0; c < cols; ++c)
          dst[k * NR + c] = *nn_rt::bElement(g, k0 + k, j + c);
        for (int64_t c = cols; c < NR; ++c)
          dst[k * NR + c] = 0.f;
      }
    }
    dst += NR * kc;
  }
}

/// im2col(image)[k0 + k, p0 + j] -> dst[j / NR][k][j % NR]: row k is
/// (channel, ky, kx), column p the output pixel (oy, ox); zero padding and
/// columns past nc are zeros. A panel's columns are cut into runs within one
/// output row; with stride 1 a run reads consecutive input pixels, copied
/// as a block when wholly inside the image (the common case).
void packBConv(const nn_rt::ConvArgs &cv, const float *image, int64_t k0,
               int64_t kc, int64_t p0, int64_t nc, float *dst) {
  const int64_t khw = cv.KH * cv.KW;
  const bool unitStride = cv.strideW == 1;
  for (int64_t jp = 0; jp < nc; jp += NR) {
    int64_t cols = minI(NR, nc - jp);
    int64_t iyBase[NR], ixBase[NR];
    // Runs [runStart[r], runStart[r + 1]) of columns sharing an output row.
    int64_t runStart[NR + 1], runs = 0;
    for (int64_t c = 0; c < cols; ++c) {
      int64_t p = p0 + jp + c;
      iyBase[c] = (p / cv.OW) * cv.strideH - cv.padTop;
      ixBase[c] = (p % cv.OW) * cv.strideW - cv.padLeft;
      if (c == 0 || iyBase[c] != iyBase[c - 1])
        runStart[runs++] = c;
    }
    runStart[runs] = cols;
    int64_t ch = k0 / khw, rem = k0 % khw;
    int64_t ky = rem / cv.KW, kx = rem % cv.KW;
    for (int64_t k = 0; k < kc; ++k) {
      const float *plane = image + ch * cv.H * cv.W;
      int64_t dy = ky * cv.dilationH, dx = kx * cv.dilationW;
      float *out = dst + k * NR;
      for (int64_t r = 0; r < runs; ++r) {
        int64_t c0 = runStart[r], c1 = runStart[r + 1];
        int64_t iy = iyBase[c0] + dy;
        if ((uint64_t)iy >= (uint64_t)cv.H) {
          for (int64_t c = c0; c < c1; ++c)
            out[c] = 0.f;
          continue;
        }
        const float *row = plane + iy * cv.W;
        int64_t ix0 = ixBase[c0] + dx;
        if (unitStride && ix0 >= 0 && ix0 + (c1 - c0) <= cv.W) {
          const float *src = row + ix0 - c0;
          for (int64_t c = c0; c < c1; ++c)
            out[c] = src[c];
          continue;
        }
        for (int64_t c = c0; c < c1; ++c) {
          int64_t ix = ixBase[c] + dx;
          out[c] = (uint64_t)ix < (uint64_t)cv.W ? row[ix] : 0.f;
        }
      }
      for (int64_t c = cols; c < NR; ++c)
        out[c] = 0.f;
      if (++kx == cv.KW) {
        kx = 0;
        if (++ky == cv.KH) {
          ky = 0;
          ++ch;
        }
      }
    }
    dst += NR * kc;
  }
}

/// The store of one MR x NR tile held in `acc` (row-major, NR per row):
/// rows x cols of it are written to C with the epilogue.
void storeTile(const nn_rt::GemmArgs &g, const float *acc, float *C, int64_t m0,
               int64_t n0, int64_t rows, int64_t cols, bool loadC, bool last) {
  for (int64_t r = 0; r < rows; ++r) {
    float *c = C + r * g.rsC;
    for (int64_t j = 0; j < cols; ++j) {
      float v = acc[r * NR + j];
      if (loadC)
        v += c[j];
      if (last)
        v = nn_rt::applyEpilogue(g.ep, v, m0 + r, n0 + j);
      c[j] = v;
    }
  }
}

/// Whether gemmBlock reads `g`'s A in place rather than packing it: a
/// row-major A whose rows are all one M block of `bk` (packing would
/// give no reuse that reading in place lacks, see above).
inline bool aReadInPlace(const nn_rt::GemmArgs &g, Blocking bk) {
  return g.csA == 1 && g.M <= bk.mc;
}

/// A whole (M x K) as gemmBlock reads it: K block k0 (of KC) at
/// dst + k0 * roundUp(M, MR), laid out as packA writes it, so rows [ic, ..)
/// of that block start ic * kc further.
void packAllA(const nn_rt::GemmArgs &g, float *dst) {
  int64_t mpad = roundUp(g.M, MR);
  for (int64_t pc = 0; pc < g.K; pc += KC)
    packA(g, 0, g.M, pc, minI(KC, g.K - pc), dst + pc * mpad);
}

/// The GEMM over rows [m0, m1) (m0 a multiple of MR) and columns [n0, n1)
/// of C in blocks `bk`. A from `packedA` (packAllA's layout, bk.kc == KC) or
/// packed here when it is null; `packB(k0, kc, n0, nc, buffer)` returns the
/// packed B block [k0, k0 + kc) x [n0, n0 + nc), written to `buffer` or
/// already packed elsewhere. The k summation of every C element is the same
/// for any split of rows and columns, so results do not depend on threads.
template <typename PackB>
void gemmBlock(const nn_rt::GemmArgs &g, int64_t m0, int64_t m1, int64_t n0,
               int64_t n1, Blocking bk, const float *packedA, PackB packB) {
  const bool inPlaceA = !packedA && aReadInPlace(g, bk);
  float *Ap = packedA || inPlaceA ? nullptr : packBufferA();
  float *Bbuf = packBufferB();
  if ((!packedA && !inPlaceA && !Ap) || !Bbuf)
    abort(); // out of memory: the ABI has no error path for a kernel
  const int64_t mpad = roundUp(g.M, MR);
  for (int64_t jc = n0; jc < n1; jc += bk.nc) {
    int64_t nc = minI(bk.nc, n1 - jc);
    for (int64_t pc = 0; pc < g.K; pc += bk.kc) {
      int64_t kc = minI(bk.kc, g.K - pc);
      bool loadC = pc > 0 || g.accumulate;
      bool last = pc + kc == g.K;
      const float *Bp = packB(pc, kc, jc, nc, Bbuf);
      for (int64_t ic = m0; ic < m1; ic += bk.mc) {
        int64_t mc = minI(bk.mc, m1 - ic);
        const float *A = Ap;
        if (packedA)
          A = packedA + pc * mpad + ic * kc;
        else if (!inPlaceA)
          packA(g, ic, mc, pc, kc, Ap);
        for (int64_t jr = 0; jr < nc; jr += NR) {
          int64_t cols = minI(NR, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += MR) {
            int64_t rows = minI(MR, mc - ir);
            float *C = g.C + (ic + ir) * g.rsC + jc + jr;
            if (inPlaceA)
              microKernelRows<true>(g, kc, g.A + (ic + ir) * g.rsA + pc, g.rsA,
                                    Bp + jr * kc, C, ic + ir, jc + jr, rows,
                                    cols, loadC, last);
            else
              microKernelRows<false>(g, kc, A + ir * kc, MR, Bp + jr * kc, C,
                                     ic + ir, jc + jr, rows, cols, loadC, last);
          }
        }
      }
    }
  }
  if (g.K == 0) { // C = epilogue(accumulate ? C : 0)
    float zeros[MR * NR] = {};
    for (int64_t i = m0; i < m1; i += MR)
      for (int64_t j = n0; j < n1; j += NR)
        storeTile(g, zeros, g.C + i * g.rsC + j, i, j, minI(MR, m1 - i),
                  minI(NR, n1 - j), g.accumulate, true);
  }
}

/// Where K block k0 of column panel `panel` (NR columns) of the whole B
/// starts in packBPanels' layout: the blocks of kGemmBlocking.kc rows one
/// after the other, each [roundUp(N, NR) / NR][kc][NR], so the panels of a
/// block are contiguous (gemmBlock reads columns [jc, jc + nc) of a block
/// at its start + jc * kc).
inline int64_t packedBOffset(const nn_rt::GemmArgs &g, int64_t k0,
                             int64_t panel) {
  int64_t kc = minI(kGemmBlocking.kc, g.K - k0);
  return k0 * roundUp(g.N, NR) + panel * NR * kc;
}

} // namespace

namespace nn_rt {
namespace NN_GEMM_NAMESPACE {

int64_t mr() { return MR; }
int64_t nr() { return NR; }

void sgemm(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  if (g.packedB) // packed once (nn_rt_sgemm_pack_b); n0 is a multiple of NR
    return gemmBlock(g, m0, m1, n0, n1, kGemmBlocking, nullptr,
                     [&](int64_t k0, int64_t, int64_t q0, int64_t, float *) {
                       return g.packedB + packedBOffset(g, k0, q0 / NR);
                     });
  gemmBlock(g, m0, m1, n0, n1, kGemmBlocking, nullptr,
            [&](int64_t k0, int64_t kc, int64_t q0, int64_t nc, float *dst) {
              packBStrided(g, k0, kc, q0, nc, dst);
              return static_cast<const float *>(dst);
            });
}

int64_t packedBSize(int64_t K, int64_t N) { return K * roundUp(N, NR); }

int64_t packBufferFloatsA() { return kPackFloatsA; }
int64_t packBufferFloatsB() { return kPackFloatsB; }

bool readsAInPlace(const GemmArgs &g) { return aReadInPlace(g, kGemmBlocking); }

void packBPanels(const GemmArgs &g, int64_t panel0, int64_t panel1,
                 float *dst) {
  int64_t n0 = panel0 * NR, n1 = minI(panel1 * NR, g.N);
  for (int64_t pc = 0; pc < g.K; pc += kGemmBlocking.kc)
    packBStrided(g, pc, minI(kGemmBlocking.kc, g.K - pc), n0, n1 - n0,
                 dst + packedBOffset(g, pc, panel0));
}

/// All of B in packBPanels' layout, which gemmBlock reads when g.packedB
/// is set: it depends on NR and kGemmBlocking.kc only, never on how C is
/// later split over threads.
void packAllB(const GemmArgs &g, float *dst) {
  packBPanels(g, 0, (g.N + NR - 1) / NR, dst);
}

void sgemmPackedB(const GemmArgs &g, int64_t m0, int64_t m1,
                  const float *packedB) {
  gemmBlock(g, m0, m1, 0, g.N, kGemmBlocking, nullptr,
            [&](int64_t k0, int64_t kc, int64_t q0, int64_t nc, float *) {
              return packedB + packedBOffset(g, k0, q0 / NR);
            });
}

int64_t packedWeightSize(const ConvArgs &cv) {
  return roundUp(cv.O, MR) * cv.C * cv.KH * cv.KW;
}

void packWeights(const ConvArgs &cv, float *dst) {
  packAllA(convGemmArgs(cv, 0), dst);
}

void conv2d(const ConvArgs &cv, int64_t image, int64_t p0, int64_t p1,
            int64_t o0, int64_t o1) {
  GemmArgs g = convGemmArgs(cv, image);
  const float *in = cv.input + image * cv.C * cv.H * cv.W;
  if (cv.KH == 1 && cv.KW == 1 && cv.strideH == 1 && cv.strideW == 1 &&
      cv.padTop == 0 && cv.padLeft == 0 && cv.OH == cv.H && cv.OW == cv.W) {
    // A 1x1 window: im2col is the image itself, B[c, p] = in[c * H*W + p].
    g.B = in, g.rsB = cv.H * cv.W, g.csB = 1;
    gemmBlock(g, o0, o1, p0, p1, kConvBlocking, cv.packedWeight,
              [&](int64_t k0, int64_t kc, int64_t q0, int64_t nc, float *dst) {
                packBStrided(g, k0, kc, q0, nc, dst);
                return static_cast<const float *>(dst);
              });
    return;
  }
  gemmBlock(g, o0, o1, p0, p1, kConvBlocking, cv.packedWeight,
            [&](int64_t k0, int64_t kc, int64_t q0, int64_t nc, float *dst) {
              packBConv(cv, in, k0, kc, q0, nc, dst);
              return static_cast<const float *>(dst);
            });
}

} // namespace NN_GEMM_NAMESPACE
} // namespace nn_rt
