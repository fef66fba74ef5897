//===- DirectConvImpl.h - Direct convolution tiles for one ISA --*- C++ -*-===//
//
// The inner loops of the direct convolution (see KernelsInternal.h for the
// scratch layout), included once per instruction set by DirectConvAvx2.cpp
// and DirectConvAvx512.cpp, each compiled with that ISA's flags. The
// including file defines NN_DIRECT_NAMESPACE, the vector type `Vec` of VL
// floats with vzero/vload/vstore/vbroadcast/vfma, vectorEpilogue and
// applyEpilogueVec (nn_rt_epilogue on one vector), a lane mask `Lanes` with
// firstLanes/vstoreLanes/applyEpilogueLanes (the same on a vector's first
// lanes, reading and writing no further), OCB x NV (the register
// tile: output channels x vectors of output pixels) and NVD (vectors per
// depthwise tile); for the in-place depthwise planes also vadd,
// applyActivationVec (the epilogue's activation alone), lanesFromBits (a
// lane mask from a bit mask) and NN_DIRECT_SHIFT_LANES, with shiftLanes<N>
// where it is 1. Everything here has internal linkage so the copies never
// meet at link time.
//
// A tile keeps OCB x NV accumulators in registers over every input channel
// and tap: per tap NV unaligned vector loads of the input (from the padded
// scratch, no bounds checks) and OCB broadcasts of the packed weights feed
// OCB x NV FMAs. With AVX2 a vector is VL pixels of one output row,
// starting at a multiple of VL (a tile's vectors may come from two rows),
// so the columns past a row are not computed and only a row's last,
// partial vector is stored masked: W2's rows of 56 are 7 whole ymm
// (flattened rows of 58 computed 3.5% more and stored 1 vector in 7 lane
// by lane, together 5% of its time). With AVX-512 the same rows are 3.5
// zmm, so the vectors run on over the flattened rows where that computes
// fewer of them, and a vector spanning a row's end is compressed to its
// kept lanes when stored (VectorWalk): W2 took 6-9% less time on Zen 5.
// Output-channel blocks are the outer loop and the band's
// tiles the inner one, so a block's weights (C x taps x OCB floats: 9 KiB
// for 64 3x3 channels) stay in L1 while the band's input (sized for L2 by
// the caller) streams past, the next channel's window prefetched; the next
// band's input is pulled into L2 meanwhile (the copy waited on it for 5% of
// W2's time). Walking tiles outermost measured 5-10% slower on Zen 3, and
// the 9 taps of a 3x3 window unrolled spilled accumulators (4% slower).
//
// The channel tiles turn the roles around, for rows too narrow to fill the
// pixel vectors (ResNet's 14x14 and 7x7 layers): CV x VL output channels
// in vectors (the packed weights' block) by PT output pixels broadcast one
// at a time, the pixels taken in order over the band's rows as if they
// were one row (so no lane is lost at a row's end). Per tap CV weight loads
// and PT broadcasts feed PT x CV FMAs. The including file also defines CV,
// PT and PTN, the pixels of the narrow channel tiles (DirectTiles), which
// fill the lanes of images whose pixel count PT leaves a remainder of.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <immintrin.h>
#include <type_traits>

namespace {

constexpr int64_t TW = NV * VL;
constexpr bool kJoinRows = NN_DIRECT_JOIN_ROWS;
static_assert(TW <= nn_rt::kDirectMaxTileWidth &&
                  NVD * VL <= nn_rt::kDirectMaxTileWidth,
              "a tile reads past the planes' slack");

/// Where an image's results go: its output planes, with the epilogue.
struct BandStore {
  float *out; // this image's output
  nn_rt_epilogue ep;
  bool vectorEp;
  int64_t OHW;
};

BandStore bandStore(const nn_rt::ConvArgs &cv, int64_t image) {
  nn_rt_epilogue ep = nn_rt::epilogueOfImage(cv.ep, image);
  return BandStore{cv.output + image * cv.O * cv.OH * cv.OW, ep,
                   vectorEpilogue(ep), cv.OH * cv.OW};
}

/// Where one vector of a band's results goes in each output channel's
/// plane: `count` consecutive pixels from pixel p, taken from the vector's
/// first lanes, or, when the vector spans a row's end (a joined walk, see
/// VectorWalk), from the lanes `keep` (compressed to the front first).
struct VectorPlace {
  int64_t p, count;
  Lanes first; // the first count lanes
#if NN_DIRECT_JOIN_ROWS
  bool prefix; // keep is `first`: nothing to compress
  Lanes keep;
#endif
};

/// Stores `v`, output channel o's results at `at`, with the epilogue: one
/// vector store for a whole vector, a masked one for a partial one (lane
/// by lane where the epilogue has no vector form). Rows of 7 or 14
/// (MobileNet's depthwise layers) are all or half partial vectors.
inline void storeVector(const BandStore &s, Vec v, int64_t o,
                        const VectorPlace &at) {
  if (at.count == 0)
    return;
  float *plane = s.out + o * s.OHW;
#if NN_DIRECT_JOIN_ROWS
  if (!at.prefix)
    v = compressLanes(v, at.keep);
#endif
  if (s.vectorEp) {
    if (at.count == VL) {
      vstore(plane + at.p, applyEpilogueVec(s.ep, v, o, at.p));
    } else {
      vstoreLanes(plane + at.p, applyEpilogueLanes(s.ep, v, o, at.p, at.first),
                  at.first);
    }
    return;
  }
  alignas(64) float lanes[VL];
  vstore(lanes, v);
  for (int64_t l = 0; l < at.count; ++l)
    plane[at.p + l] = nn_rt::applyEpilogue(s.ep, lanes[l], o, at.p + l);
}

/// The band's output vectors in order, each VL consecutive floats of the
/// scratch's flattened rows from q = j * Wq + x. Row by row, vectors start
/// at columns 0, VL, 2 VL, ... of each row, so the Wq - OW columns past a
/// row are neither computed nor stored, and a row's last vector is partial
/// unless VL divides OW. Joined (where that computes fewer vectors,
/// nn_rt::directJoinRows), the vectors run on over the rows: a vector's
/// lanes past a row's end are its padding columns (computed, dropped) and
/// then the next row's first pixels. W2's rows of 56 in a pitch of 58 fill
/// 96.6% of the lanes, against 87.5% row by row (3.5 zmm a row).
struct VectorWalk {
  explicit VectorWalk(bool joined) : joined(joined) {}
  int64_t j = 0, x = 0;
  bool joined;
  /// Whether the vector at (j, x) holds a pixel of the band's `rows`.
  bool within(int64_t rows, int64_t OW) const {
    return j < rows - 1 || (j == rows - 1 && x < OW);
  }
  void next(int64_t OW, int64_t Wq) {
    x += VL;
    if (!joined) {
      if (x >= OW)
        x = 0, ++j;
      return;
    }
    while (x >= Wq)
      x -= Wq, ++j;
  }
  /// The vector at (j, x) of a band whose first row is output row oy0.
  VectorPlace place(int64_t rows, int64_t OW, int64_t Wq, int64_t oy0) const {
    VectorPlace at;
    if (!joined) {
      at.p = (oy0 + j) * OW + x;
      at.count = OW - x < VL ? OW - x : VL;
#if NN_DIRECT_JOIN_ROWS
      at.prefix = true;
#endif
    } else {
#if NN_DIRECT_JOIN_ROWS
      // Row r's columns c, c + 1, ... are lanes l0, l0 + 1, ...: c = x on
      // the first row, 0 on the next ones, each Wq - c lanes further on.
      unsigned bits = 0;
      at.p = -1;
      for (int64_t r = j, c = x, l0 = 0; l0 < VL && r < rows;
           l0 += Wq - c, c = 0, ++r) {
        if (c >= OW)
          continue;
        int64_t n = OW - c < VL - l0 ? OW - c : VL - l0;
        bits |= ((1u << n) - 1) << l0;
        if (at.p < 0)
          at.p = (oy0 + r) * OW + c;
      }
      at.count = __builtin_popcount(bits);
      at.prefix = bits == (1u << at.count) - 1;
      at.keep = static_cast<Lanes>(bits);
#else
      __builtin_unreachable(); // these tiles never join rows
#endif
    }
    at.first = firstLanes(at.count);
    return at;
  }
};

/// The next N vectors of `walk` within `rows` rows: their scratch offsets
/// (j * Wq + x) and places. Vectors past the band repeat its last one
/// (computed again, never stored), so every read stays in the scratch.
template <int N> struct VectorTile {
  int64_t base[N];
  VectorPlace place[N];
  int valid;
  VectorTile(VectorWalk &walk, int64_t rows, int64_t OW, int64_t Wq,
             int64_t oy0) {
    valid = 0;
    int64_t q = walk.j * Wq + walk.x; // the caller checked walk.within
#pragma GCC unroll 16
    for (int v = 0; v < N; ++v) {
      if (walk.within(rows, OW)) {
        q = walk.j * Wq + walk.x;
        place[v] = walk.place(rows, OW, Wq, oy0);
        valid = v + 1;
        walk.next(OW, Wq);
      }
      base[v] = q;
    }
  }
};

/// Walks a DirectPrefetch a few cache lines at a time, so that its lines
/// arrive spread over a band's tiles instead of in one burst.
class PrefetchWalk {
public:
  PrefetchWalk(const nn_rt::DirectPrefetch &p, int64_t steps)
      : p(p), lineFloats(64 / sizeof(float)),
        perStep(p.base
                    ? (p.channels * ((p.floats + lineFloats - 1) / lineFloats) +
                       steps - 1) /
                          steps
                    : 0) {}
  void step() {
    for (int64_t i = 0; i < perStep && c < p.channels; ++i) {
      _mm_prefetch(reinterpret_cast<const char *>(p.base + c * p.stride + f),
                   _MM_HINT_T1);
      f += lineFloats;
      if (f >= p.floats)
        f = 0, ++c;
    }
  }

private:
  const nn_rt::DirectPrefetch &p;
  const int64_t lineFloats, perStep;
  int64_t c = 0, f = 0;
};

/// out = sum over channels c < C and taps t of w[c][t][r] * in[c][base[v] +
/// off[t] ...]: one OCB x NV tile, `in` at channel 0 of the band's scratch,
/// `w` at its block of the packed weights. The sums build in a local array
/// only ever indexed by unrolled constants, which GCC keeps in registers
/// (`out`, indexed at run time by partial stores, lives in memory:
/// accumulating there directly stored every FMA's result). Not inlined:
/// inside directConvBand, GCC 12 gave the 3 input vectors of the AVX-512
/// tile stack slots (values of the band loop held the spare zmm registers),
/// so each of the 24 FMAs per tap read its input back from memory and the
/// tile ran load-bound at a third of the FMA peak. On its own the tile holds
/// its 24 + 3 + 1 vectors in registers; the call costs nothing beside a
/// tile's C x taps x 24 FMAs.
__attribute__((noinline)) void directTile(const float *in,
                                          const int64_t (&base)[NV],
                                          int64_t chanStride, int64_t C,
                                          const int64_t *off, int64_t taps,
                                          const float *w, Vec (&out)[OCB][NV]) {
  Vec acc[OCB][NV];
#pragma GCC unroll 16
  for (int r = 0; r < OCB; ++r)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      acc[r][v] = vzero();
  for (int64_t c = 0; c < C; ++c, in += chanStride) {
    for (int64_t t = 0; t < taps; ++t, w += OCB) {
      const float *x = in + off[t];
      // The next channel's window: the taps' addresses jump between rows
      // and planes, which the hardware's stride prefetchers do not follow.
      _mm_prefetch(reinterpret_cast<const char *>(x + chanStride + base[0]),
                   _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(x + chanStride +
                                                  base[NV - 1] + VL - 1),
                   _MM_HINT_T0);
      Vec xv[NV];
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v)
        xv[v] = vload(x + base[v]);
#pragma GCC unroll 16
      for (int r = 0; r < OCB; ++r) {
        Vec wr = vbroadcast(w + r);
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v)
          acc[r][v] = vfma(wr, xv[v], acc[r][v]);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < OCB; ++r)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
      out[r][v] = acc[r][v];
}

/// sums[q ... q + VL) = sum over taps t of w[t] * in[q + off[t] ...] for
/// the `vectors` vectors q = 0, VL, 2 VL, ...: a depthwise plane's sums, NVD
/// vectors (independent chains of FMAs) at a time, the last NVD ending at
/// the last vector (overlapping the ones before it, which it computes
/// again), so every read stays within the planes. One call a plane, not
/// inlined: inside the plane's loops GCC 12 kept the accumulators on the
/// stack.
__attribute__((noinline)) void depthwiseSums(const float *in,
                                             const int64_t *off, int64_t taps,
                                             const float *w, int64_t vectors,
                                             float *sums) {
  const int64_t end = vectors * VL;
  for (int64_t q0 = 0; q0 < end; q0 += NVD * VL) {
    if (q0 + NVD * VL > end)
      q0 = end > NVD * VL ? end - NVD * VL : 0;
    Vec acc[NVD];
#pragma GCC unroll 16
    for (int v = 0; v < NVD; ++v)
      acc[v] = vzero();
    for (int64_t t = 0; t < taps; ++t) {
      Vec wt = vbroadcast(w + t);
      const float *x = in + off[t] + q0;
#pragma GCC unroll 16
      for (int v = 0; v < NVD; ++v)
        acc[v] = vfma(wt, vload(x + v * VL), acc[v]);
    }
#pragma GCC unroll 16
    for (int v = 0; v < NVD; ++v)
      vstore(sums + q0 + v * VL, acc[v]);
    if (q0 + NVD * VL >= end)
      break;
  }
}

/// out[p][v] = sum over channels c < C and taps t of in[c][base[p] +
/// off[t]] * w[c][t][v * VL ...]: one channel tile (PT pixels x CV vectors
/// of output channels), `w` at its block of the packed weights. Not inlined,
/// for the reason directTile is not.
template <int PT>
__attribute__((noinline)) void
channelTile(const float *in, const int64_t (&base)[PT], int64_t chanStride,
            int64_t C, const int64_t *off, int64_t taps, const float *w,
            Vec (&out)[PT][CV]) {
  Vec acc[PT][CV];
#pragma GCC unroll 16
  for (int p = 0; p < PT; ++p)
#pragma GCC unroll 4
    for (int v = 0; v < CV; ++v)
      acc[p][v] = vzero();
  for (int64_t c = 0; c < C; ++c, in += chanStride) {
    for (int64_t t = 0; t < taps; ++t, w += CV * VL) {
      const float *x = in + off[t];
      _mm_prefetch(reinterpret_cast<const char *>(x + chanStride + base[0]),
                   _MM_HINT_T0);
      _mm_prefetch(
          reinterpret_cast<const char *>(x + chanStride + base[PT - 1]),
          _MM_HINT_T0);
      Vec wv[CV];
#pragma GCC unroll 4
      for (int v = 0; v < CV; ++v)
        wv[v] = vload(w + v * VL);
#pragma GCC unroll 16
      for (int p = 0; p < PT; ++p) {
        Vec xp = vbroadcast(x + base[p]);
#pragma GCC unroll 4
        for (int v = 0; v < CV; ++v)
          acc[p][v] = vfma(xp, wv[v], acc[p][v]);
      }
    }
  }
#pragma GCC unroll 16
  for (int p = 0; p < PT; ++p)
#pragma GCC unroll 4
    for (int v = 0; v < CV; ++v)
      out[p][v] = acc[p][v];
}

/// Lanes [a, b) of p[0, VL), the others zero; reads no float outside them.
inline Vec loadPart(const float *p, int64_t a, int64_t b) {
  if (a <= 0 && b >= VL)
    return vload(p);
  if (b <= a || b <= 0 || a >= VL)
    return vzero(); // never a masked load of no lane (see vloadLanes)
  return vloadLanes(p, lanesBetween(a, b));
}

/// row[x] = src[x * stride] for x in [lo, hi), zero for the rest of
/// [0, Wq), reading src only there; S is the stride, or 0 for any (one
/// float at a time). Whole vectors: the last writes up to VL - 1 floats
/// past the row, which the caller writes afterwards.
template <int S>
void fillPhaseRow(float *row, const float *src, int64_t Wq, int64_t lo,
                  int64_t hi, int64_t stride = S) {
  for (int64_t x0 = 0; x0 < Wq; x0 += VL) {
    const int64_t a = lo - x0, b = hi - x0; // the lanes to read
    Vec v;
    if constexpr (S == 1) {
      v = loadPart(src + x0, a, b);
    } else if constexpr (S == 2) {
      // Lane l is float 2 l of the 2 VL from src + 2 x0; the odd ones
      // between the first and last read are read and dropped.
      const float *p = src + 2 * x0;
      v = evenLanes(loadPart(p, 2 * a, 2 * b - 1),
                    loadPart(p + VL, 2 * a - VL, 2 * b - 1 - VL));
    } else {
      alignas(64) float lanes[VL];
      for (int64_t l = 0; l < VL; ++l)
        lanes[l] = l >= a && l < b ? src[(x0 + l) * stride] : 0.f;
      v = vload(lanes);
    }
    vstore(row + x0, v);
  }
}

} // namespace

namespace nn_rt {
namespace NN_DIRECT_NAMESPACE {

int64_t directChannelBlock() { return CV * VL; }
int64_t directChannelTilePixels() { return PT; }
int64_t directNarrowChannelTilePixels() { return PTN; }

/// directConvBandChannels with tiles of PT pixels.
template <int PT>
void bandChannels(const ConvArgs &cv, const DirectGeometry &g,
                  const float *packedWeight, const float *scratch,
                  int64_t image, int64_t oy0, int64_t rows, int64_t oBegin,
                  int64_t oEnd, const DirectPrefetch &next) {
  constexpr int64_t CB = CV * VL;
  const nn_rt_epilogue ep = nn_rt::epilogueOfImage(cv.ep, image);
  float *out = cv.output + image * cv.O * cv.OH * cv.OW;
  const int64_t OHW = cv.OH * cv.OW, first = oy0 * cv.OW;
  const int64_t blockFloats = cv.C * g.taps * CB, pixels = rows * cv.OW;
  PrefetchWalk prefetch(next, (oEnd - oBegin + CB - 1) / CB *
                                  ((pixels + PT - 1) / PT));
  for (int64_t o0 = oBegin; o0 < oEnd; o0 += CB) {
    const float *w = packedWeight + (o0 / CB) * blockFloats;
    const int64_t channels = cv.O - o0 < CB ? cv.O - o0 : CB;
    for (int64_t p0 = 0; p0 < pixels; p0 += PT) {
      // Pixel p0 + p of the band is (row q / OW, column q % OW); those
      // past the band repeat its last one (computed, never stored).
      int64_t base[PT];
      for (int p = 0; p < PT; ++p) {
        int64_t q = p0 + p < pixels ? p0 + p : pixels - 1;
        base[p] = q / cv.OW * g.Wq + q % cv.OW;
      }
      Vec acc[PT][CV];
      channelTile(scratch, base, g.chanStride, cv.C, g.offsets, g.taps, w, acc);
      prefetch.step();
      // Each output channel's results are PT consecutive pixels of its
      // plane: through a transposing buffer, then stored a channel at a
      // time with the scalar epilogue (a tile's C x taps x PT x CV FMAs
      // dwarf its PT x CB stores).
      alignas(64) float tile[PT][CB];
      for (int p = 0; p < PT; ++p)
        for (int v = 0; v < CV; ++v)
          vstore(&tile[p][v * VL], acc[p][v]);
      const int64_t valid = pixels - p0 < PT ? pixels - p0 : PT;
      for (int64_t r = 0; r < channels; ++r) {
        float *plane = out + (o0 + r) * OHW + first + p0;
        for (int64_t p = 0; p < valid; ++p)
          plane[p] =
              nn_rt::applyEpilogue(ep, tile[p][r], o0 + r, first + p0 + p);
      }
    }
  }
}

void directConvBandChannels(const ConvArgs &cv, const DirectGeometry &g,
                            const float *packedWeight, const float *scratch,
                            int64_t image, int64_t oy0, int64_t rows,
                            int64_t oBegin, int64_t oEnd,
                            const DirectPrefetch &next) {
  bandChannels<PT>(cv, g, packedWeight, scratch, image, oy0, rows, oBegin, oEnd,
                   next);
}

void directConvBandNarrowChannels(const ConvArgs &cv, const DirectGeometry &g,
                                  const float *packedWeight,
                                  const float *scratch, int64_t image,
                                  int64_t oy0, int64_t rows, int64_t oBegin,
                                  int64_t oEnd, const DirectPrefetch &next) {
  bandChannels<PTN>(cv, g, packedWeight, scratch, image, oy0, rows, oBegin,
                    oEnd, next);
}

int64_t directOcBlock() { return OCB; }
bool directJoinsRows() { return kJoinRows; }
int64_t directTileWidth() { return TW; }
int64_t directVectorWidth() { return VL; }

void directConvBand(const ConvArgs &cv, const DirectGeometry &g,
                    const float *packedWeight, const float *scratch,
                    int64_t image, int64_t oy0, int64_t rows, int64_t oBegin,
                    int64_t oEnd, const DirectPrefetch &next) {
  BandStore s = bandStore(cv, image);
  const int64_t blockFloats = cv.C * g.taps * OCB;
  const bool joined = directJoinRows(rows, cv.OW, g.Wq, VL, kJoinRows);
  PrefetchWalk prefetch(
      next, (oEnd - oBegin + OCB - 1) / OCB *
                ((directVectors(rows, cv.OW, g.Wq, VL, joined) + NV - 1) / NV));
  for (int64_t o0 = oBegin; o0 < oEnd; o0 += OCB) {
    const float *w = packedWeight + (o0 / OCB) * blockFloats;
    const int64_t channels = cv.O - o0 < OCB ? cv.O - o0 : OCB;
    for (VectorWalk walk(joined); walk.within(rows, cv.OW);) {
      VectorTile<NV> tile(walk, rows, cv.OW, g.Wq, oy0);
      Vec acc[OCB][NV];
      directTile(scratch, tile.base, g.chanStride, cv.C, g.offsets, g.taps, w,
                 acc);
      prefetch.step();
      for (int v = 0; v < tile.valid; ++v) {
        if (channels == OCB) {
#pragma GCC unroll 16
          for (int r = 0; r < OCB; ++r)
            storeVector(s, acc[r][v], o0 + r, tile.place[v]);
        } else {
          for (int r = 0; r < channels; ++r)
            storeVector(s, acc[r][v], o0 + r, tile.place[v]);
        }
      }
    }
  }
}

/// Channels, phases, rows and slack in order, each in whole vectors, so the
/// floats each writes past its end are written again by the next; the last
/// slack's run past the planes (KernelsInternal.h's kFillSpill). A row is a
/// few vectors (a 14-float row of MobileNet is one masked load and a store),
/// where it was two memsets and a memcpy: with those, the ten depthwise
/// shapes of MobileNetV2 at batch 8 took 22.1-22.7 ms, with this fill and
/// depthwiseSums 18.8-19.2 (Zen 5).
void fillBand(const ConvArgs &cv, const DirectGeometry &g, const float *image,
              int64_t c0, int64_t channels, int64_t oy0, float *dst) {
  const int64_t sH = cv.strideH, sW = cv.strideW, Wq = g.Wq;
  for (int64_t c = 0; c < channels; ++c) {
    const float *in = image + (c0 + c) * cv.H * cv.W;
    for (int64_t py = 0; py < sH; ++py)
      for (int64_t px = 0; px < sW; ++px) {
        if (!g.phaseUsed[py * sW + px])
          continue; // never read
        float *plane = dst + c * g.chanStride + (py * sW + px) * g.planeSize;
        // Columns [xLo, xHi) are inside the input's width.
        int64_t xLo = 0, xHi = Wq;
        while (xLo < Wq && xLo * sW + px - cv.padLeft < 0)
          ++xLo;
        while (xHi > xLo && (xHi - 1) * sW + px - cv.padLeft >= cv.W)
          --xHi;
        for (int64_t j = 0; j < g.planeRows; ++j) {
          float *row = plane + j * Wq;
          const int64_t iy = (oy0 + j) * sH + py - cv.padTop;
          if (iy < 0 || iy >= cv.H) {
            fillPhaseRow<1>(row, in, Wq, 0, 0);
            continue;
          }
          // The input column of x = 0 (before the row where padding leads).
          const float *src = in + iy * cv.W + px - cv.padLeft;
          if (sW == 1)
            fillPhaseRow<1>(row, src, Wq, xLo, xHi);
          else if (sW == 2)
            fillPhaseRow<2>(row, src, Wq, xLo, xHi);
          else
            fillPhaseRow<0>(row, src, Wq, xLo, xHi, sW);
        }
        for (int64_t q = g.planeRows * Wq; q < g.planeSize; q += VL)
          vstore(plane + q, vzero());
      }
  }
}

namespace {

/// Where one output channel's plane of results goes: straight to the plane
/// with the epilogue's per-channel addends summed into one vector (a
/// folded batch norm's bias, say) and its activation, or, when an addend
/// varies along the plane, through storeVector.
struct PlaneStore {
  PlaneStore(const ConvArgs &cv, int64_t image, int64_t channel)
      : s(bandStore(cv, image)), channel(channel),
        out(s.out + channel * s.OHW) {
    add = vzero();
    for (const nn_rt_addend &a : s.ep.addends) {
      if (!a.data)
        continue;
      if (a.col_stride != 0) {
        perChannel = false;
        return;
      }
      add = vadd(add, vbroadcast(a.data + channel * a.row_stride));
    }
  }
  /// Stores results q ... q + count of the plane: none for count <= 0 (a
  /// vector past the plane's end), all VL for count >= VL.
  void store(Vec v, int64_t q, int64_t count) const {
    if (count <= 0)
      return;
    count = count < VL ? count : VL;
    if (!perChannel) {
      VectorPlace at;
      at.p = q;
      at.count = count;
      at.first = firstLanes(count);
#if NN_DIRECT_JOIN_ROWS
      at.prefix = true;
#endif
      storeVector(s, v, channel, at);
      return;
    }
    v = applyActivationVec(s.ep, vadd(v, add));
    if (count == VL)
      vstore(out + q, v);
    else
      vstoreLanes(out + q, v, firstLanes(count));
  }
  BandStore s;
  int64_t channel;
  float *out;
  bool perChannel = true;
  Vec add;
};

/// Vectors a group of the in-place depthwise kernels computes at once.
constexpr int NVS = 8;

/// depthwiseSamePlane for kernels of KH x KW (0: cv's, at run time). The
/// plane is flattened (q = y * W + x; input and output pixels share q) and
/// walked NVS vectors at a time, each tap of a vector one load at q plus
/// the tap's offset, masked to the lanes whose tap falls inside the image
/// (never off the top or bottom rows or across a row's start or end, where
/// the flattened read would take the neighbouring row's pixel), so nothing
/// is copied or padded and every read stays within the plane.
template <int KH, int KW>
void samePlane(const ConvArgs &cv, const uint16_t *masks, int64_t image,
               int64_t channel) {
  const int64_t taps = KH ? KH * KW : cv.KH * cv.KW, kw = KW ? KW : cv.KW;
  const int64_t W = cv.W, HW = cv.H * W;
  const float *in = cv.input + (image * cv.C + channel) * HW;
  const float *w = cv.weight + channel * taps;
  const PlaneStore out(cv, image, channel);
  // Tap t of pixel q reads in[q + offset[t]].
  int64_t offset[KH ? KH * KW : kDirectMaxTaps];
  for (int64_t t = 0; t < taps; ++t)
    offset[t] = (t / kw - cv.padTop) * W + t % kw - cv.padLeft;
  for (int64_t q0 = 0; q0 < HW; q0 += NVS * VL, masks += NVS * taps) {
    Vec acc[NVS];
#pragma GCC unroll 16
    for (int v = 0; v < NVS; ++v)
      acc[v] = vzero();
#pragma GCC unroll 32
    for (int64_t t = 0; t < taps; ++t) {
      const Vec wt = vbroadcast(w + t);
      const float *x = in + q0 + offset[t];
#pragma GCC unroll 16
      for (int v = 0; v < NVS; ++v)
        // Never a load of no lane (vloadLanes).
        if (uint32_t bits = masks[v * taps + t])
          acc[v] =
              vfma(wt, vloadLanes(x + v * VL, lanesFromBits(bits)), acc[v]);
    }
#pragma GCC unroll 16
    for (int v = 0; v < NVS; ++v)
      out.store(acc[v], q0 + v * VL, HW - q0 - v * VL);
  }
}

#if NN_DIRECT_SHIFT_LANES
/// The vector dx (-2 ... 2) floats from `cur`, within prev, cur, next: its
/// taps dx columns away. A constant once the caller's loop is unrolled.
inline Vec tapLanes(int dx, Vec prev, Vec cur, Vec next, Lanes keep) {
  switch (dx) {
  case -2:
    return shiftLanes<VL - 2>(prev, cur, keep);
  case -1:
    return shiftLanes<VL - 1>(prev, cur, keep);
  case 1:
    return shiftLanes<1>(cur, next, keep);
  case 2:
    return shiftLanes<2>(cur, next, keep);
  default:
    return cur;
  }
}

/// The NV vectors from pixel q0 of a K x K kernel padded by K / 2 on every
/// side (samePlaneShifted), `masks` at the first's; Inside: every vector
/// the group loads lies within the plane.
template <int K, int NV, bool Inside>
void shiftedGroup(const float *in, int64_t W, int64_t HW, const float *w,
                  const uint16_t *masks, int64_t q0, const PlaneStore &out) {
  constexpr int R = K / 2, kTaps = K * K;
  static_assert(R <= 2, "tapLanes reaches two columns either side");
  Vec acc[NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v)
    acc[v] = vzero();
#pragma GCC unroll 8
  for (int ky = 0; ky < K; ++ky) {
    // in[a ... a + VL) for a = q0 + (ky - R) W + (j - 1) VL, zero outside
    // the plane.
    const int64_t a0 = q0 + (ky - R) * W - VL;
    const bool rowInside = Inside || (a0 >= 0 && a0 + (NV + 2) * VL <= HW);
    Vec row[NV + 2];
#pragma GCC unroll 16
    for (int j = 0; j < NV + 2; ++j) {
      const int64_t a = a0 + j * VL;
      row[j] = rowInside ? vload(in + a) : loadPart(in + a, -a, HW - a);
    }
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v)
#pragma GCC unroll 8
      for (int kx = 0; kx < K; ++kx) {
        const Lanes keep =
            kx == R ? Lanes() : lanesFromBits(masks[v * kTaps + R * K + kx]);
        acc[v] = vfma(vbroadcast(w + ky * K + kx),
                      tapLanes(kx - R, row[v], row[v + 1], row[v + 2], keep),
                      acc[v]);
      }
  }
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    const int64_t q = q0 + v * VL;
    out.store(acc[v], q, HW - q);
  }
}

/// samePlane for a K x K kernel padded by K / 2 on every side, without a
/// load that splits a cache line (6 of a 3x3 window's 9 did, and held a
/// plane of 112x112 to a third of the FMA peak on Zen 5): per kernel row,
/// the group's vectors and one either side are loaded whole (zero outside
/// the plane), and the taps left and right of a vector are its lanes
/// shifted in from its neighbour, the lanes whose tap crosses a row's start
/// or end zeroed in the same instruction (the column masks are the masks
/// of the kernel's middle row). Groups of NVS vectors, the plane's last
/// ones in groups of 4, 2 and 1 (a 7x7 plane is 4 vectors, a 14x14 one
/// 13).
template <int K>
void samePlaneShifted(const ConvArgs &cv, const uint16_t *masks, int64_t image,
                      int64_t channel) {
  constexpr int64_t kTaps = K * K, R = K / 2;
  const int64_t W = cv.W, HW = cv.H * W, vectors = (HW + VL - 1) / VL;
  const float *in = cv.input + (image * cv.C + channel) * HW;
  const float *w = cv.weight + channel * kTaps;
  const PlaneStore out(cv, image, channel);
  // The group of NV vectors from vector v.
  auto group = [&](auto nv, int64_t v) {
    constexpr int NV = decltype(nv)::value;
    const int64_t q0 = v * VL;
    if (q0 - VL - R * W >= 0 && q0 + (NV + 1) * VL + R * W <= HW)
      shiftedGroup<K, NV, true>(in, W, HW, w, masks + v * kTaps, q0, out);
    else
      shiftedGroup<K, NV, false>(in, W, HW, w, masks + v * kTaps, q0, out);
  };
  int64_t v = 0;
  for (; v + NVS <= vectors; v += NVS)
    group(std::integral_constant<int, NVS>(), v);
  static_assert(NVS == 8, "the last groups below");
  if (vectors - v >= 4) {
    group(std::integral_constant<int, 4>(), v);
    v += 4;
  }
  if (vectors - v >= 2) {
    group(std::integral_constant<int, 2>(), v);
    v += 2;
  }
  if (vectors - v >= 1)
    group(std::integral_constant<int, 1>(), v);
}

#endif

} // namespace

#if NN_DIRECT_SHIFT_LANES
namespace {
/// depthwiseStride2Plane for a K x K window padded by K / 2.
template <int K>
void stride2Plane(const ConvArgs &cv, int64_t image, int64_t channel) {
  constexpr int R = K / 2;
  static_assert(R == 1 || R == 2, "the taps below reach two columns");
  const int64_t H = cv.H, W = cv.W, OW = cv.OW;
  const float *in = cv.input + (image * cv.C + channel) * H * W;
  const float *w = cv.weight + channel * K * K;
  const PlaneStore out(cv, image, channel);
  const Lanes all = lanesFromBits((1u << VL) - 1);
  // The 3x3 window's weights stay in registers (7-15% faster on Zen 5);
  // the 5x5 one's 25 would not fit beside the rest.
  Vec weight[K == 3 ? 9 : 1];
  if constexpr (K == 3) {
#pragma GCC unroll 9
    for (int t = 0; t < 9; ++t)
      weight[t] = vbroadcast(w + t);
  }
  auto tap = [&](int t) {
    if constexpr (K == 3)
      return weight[t];
    else
      return vbroadcast(w + t);
  };
  for (int64_t oy = 0; oy < cv.OH; ++oy) {
    // Per kernel row, the previous vector's even and odd lanes (zero
    // before the row).
    Vec evenBefore[K], oddBefore[K];
#pragma GCC unroll 8
    for (int ky = 0; ky < K; ++ky)
      evenBefore[ky] = oddBefore[ky] = vzero();
    for (int64_t ox0 = 0; ox0 < OW; ox0 += VL) {
      const int64_t x0 = 2 * ox0; // the input column of lane 0's middle tap
      Vec acc = vzero();
#pragma GCC unroll 8
      for (int ky = 0; ky < K; ++ky) {
        const int64_t iy = 2 * oy + ky - R;
        if (iy < 0 || iy >= H)
          continue;
        const float *row = in + iy * W + x0;
        const Vec a = loadPart(row, 0, W - x0),
                  b = loadPart(row + VL, 0, W - x0 - VL);
        const Vec even = evenLanes(a, b), odd = oddLanes(a, b);
        const int t = ky * K + R; // the middle tap
        acc =
            vfma(tap(t - 1), shiftLanes<VL - 1>(oddBefore[ky], odd, all), acc);
        acc = vfma(tap(t), even, acc);
        acc = vfma(tap(t + 1), odd, acc);
        if constexpr (R == 2) {
          // Column 2 ox - 2 is the even lane before; 2 ox + 2 the even
          // lane after, the last lane's the first float past the 2 VL.
          const Vec c = loadPart(row + 2 * VL, 0, minI(1, W - x0 - 2 * VL));
          acc = vfma(tap(t - 2), shiftLanes<VL - 1>(evenBefore[ky], even, all),
                     acc);
          acc = vfma(tap(t + 2), shiftLanes<1>(even, c, all), acc);
        }
        evenBefore[ky] = even;
        oddBefore[ky] = odd;
      }
      out.store(acc, oy * OW + ox0, OW - ox0);
    }
  }
}
} // namespace

/// A 3x3 or 5x5 depthwise plane at stride 2 padded by K / 2 (MobileNet's
/// and EfficientNet's downsampling layers), read in place rather than
/// split into four zero-padded phase planes and loaded across cache lines:
/// per output row, each kernel row's 2 VL input floats under a vector of
/// outputs are loaded whole (zero past the row's end), their even and odd
/// lanes are the taps at columns 2 ox and 2 ox + 1, and the taps left of
/// those are the same lanes shifted up by one, the previous vector's last
/// lane (zero before the row) shifted in (the 5x5 window's tap at 2 ox + 2
/// the even lanes shifted down, the float after them shifted in). Kernel
/// rows above or below the image are skipped.
void depthwiseStride2Plane(const ConvArgs &cv, int64_t image, int64_t channel) {
  if (cv.KH == 3)
    stride2Plane<3>(cv, image, channel);
  else
    stride2Plane<5>(cv, image, channel);
}
#endif

int64_t depthwiseSameGroup() { return NVS; }

void depthwiseSamePlane(const ConvArgs &cv, const uint16_t *masks,
                        int64_t image, int64_t channel) {
#if NN_DIRECT_SHIFT_LANES
  if (cv.KH == 3 && cv.KW == 3 && cv.padTop == 1 && cv.padLeft == 1)
    return samePlaneShifted<3>(cv, masks, image, channel);
  if (cv.KH == 5 && cv.KW == 5 && cv.padTop == 2 && cv.padLeft == 2)
    return samePlaneShifted<5>(cv, masks, image, channel);
#endif
  if (cv.KH == 3 && cv.KW == 3)
    samePlane<3, 3>(cv, masks, image, channel);
  else if (cv.KH == 5 && cv.KW == 5)
    samePlane<5, 5>(cv, masks, image, channel);
  else
    samePlane<0, 0>(cv, masks, image, channel);
}

void depthwisePlane(const ConvArgs &cv, const DirectGeometry &g, float *scratch,
                    int64_t image, int64_t channel) {
  fillBand(cv, g, cv.input + image * cv.C * cv.H * cv.W, channel, 1, 0,
           scratch);
  // The sums, over the flattened phase rows (q = oy * Wq + x, the columns
  // x >= OW computed and dropped), into the buffer after the planes.
  const float *w = cv.weight + channel * g.taps;
  float *sums = scratch + g.chanStride;
  const int64_t vectors = (cv.OH * g.Wq + VL - 1) / VL;
  depthwiseSums(scratch, g.offsets, g.taps, w, vectors, sums);
  // Row by row into the output plane, with the epilogue.
  BandStore s = bandStore(cv, image);
  VectorPlace at;
#if NN_DIRECT_JOIN_ROWS
  at.prefix = true;
#endif
  for (int64_t oy = 0; oy < cv.OH; ++oy)
    for (int64_t ox = 0; ox < cv.OW; ox += VL) {
      at.p = oy * cv.OW + ox;
      at.count = cv.OW - ox < VL ? cv.OW - ox : VL;
      at.first = firstLanes(at.count);
      storeVector(s, vload(sums + oy * g.Wq + ox), channel, at);
    }
}

} // namespace NN_DIRECT_NAMESPACE
} // namespace nn_rt
