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
// depthwise tile). Everything here has internal linkage so the copies never
// meet at link time.
//
// A tile keeps OCB x NV accumulators in registers over every input channel
// and tap: per tap NV unaligned vector loads of the input (from the padded
// scratch, no bounds checks) and OCB broadcasts of the packed weights feed
// OCB x NV FMAs. A vector is VL pixels of one output row, starting at a
// multiple of VL (a tile's vectors may come from two rows), so the columns
// past a row are not computed and only a row's last, partial vector is
// stored lane by lane: W2's rows of 56 are 7 whole ymm (flattened rows of
// 58 computed 3.5% more and stored 1 vector in 7 lane by lane, together
// 5% of its time). Output-channel blocks are the outer loop and the band's
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
// and PT broadcasts feed PT x CV FMAs. The including file also defines CV
// and PT.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <immintrin.h>

namespace {

constexpr int64_t TW = NV * VL;
static_assert(TW <= nn_rt::kDirectMaxTileWidth &&
                  NVD * VL <= nn_rt::kDirectMaxTileWidth,
              "a tile reads past the planes' slack");

/// Where a band's results go: output row oy0 + j of this image.
struct BandStore {
  float *out; // this image's output
  nn_rt_epilogue ep;
  bool vectorEp;
  int64_t OW, OHW, oy0;
};

BandStore bandStore(const nn_rt::ConvArgs &cv, int64_t image, int64_t oy0) {
  nn_rt_epilogue ep = nn_rt::epilogueOfImage(cv.ep, image);
  return BandStore{cv.output + image * cv.O * cv.OH * cv.OW,
                   ep,
                   vectorEpilogue(ep),
                   cv.OW,
                   cv.OH * cv.OW,
                   oy0};
}

/// Stores `v`, output channel o's results at band row j, columns [x, x +
/// VL) cut at OW, with the epilogue: one vector store for a whole vector,
/// a masked one for a row's last, partial one (lane by lane where the
/// epilogue has no vector form). Rows of 7 or 14 (MobileNet's depthwise
/// layers) are all or half partial vectors.
inline void storeVector(const BandStore &s, Vec v, int64_t o, int64_t j,
                        int64_t x) {
  float *plane = s.out + o * s.OHW;
  const int64_t p = (s.oy0 + j) * s.OW + x;
  if (s.vectorEp) {
    if (x + VL <= s.OW) {
      vstore(plane + p, applyEpilogueVec(s.ep, v, o, p));
    } else {
      Lanes lanes = firstLanes(s.OW - x);
      vstoreLanes(plane + p, applyEpilogueLanes(s.ep, v, o, p, lanes), lanes);
    }
    return;
  }
  alignas(64) float lanes[VL];
  vstore(lanes, v);
  for (int64_t l = 0; l < VL && x + l < s.OW; ++l)
    plane[p + l] = nn_rt::applyEpilogue(s.ep, lanes[l], o, p + l);
}

/// The band's output vectors in order: row j, columns [x, x + VL), with
/// ceil(OW / VL) vectors per row. A vector never crosses a row, so the Wq -
/// OW columns past each row are neither computed nor stored.
struct VectorWalk {
  int64_t j = 0, x = 0;
  void next(int64_t OW) {
    x += VL;
    if (x >= OW)
      x = 0, ++j;
  }
};

/// The next N vectors of `walk` within `rows` rows: their rows, columns and
/// scratch offsets (j * Wq + x). Vectors past the band repeat its last one
/// (computed again, never stored), so every read stays in the scratch.
template <int N> struct VectorTile {
  int64_t j[N], x[N], base[N];
  int valid;
  VectorTile(VectorWalk &walk, int64_t rows, int64_t OW, int64_t Wq) {
    valid = 0;
#pragma GCC unroll 16
    for (int v = 0; v < N; ++v) {
      if (walk.j < rows) {
        j[v] = walk.j, x[v] = walk.x, valid = v + 1;
        walk.next(OW);
      } else {
        j[v] = j[v - 1], x[v] = x[v - 1];
      }
      base[v] = j[v] * Wq + x[v];
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

/// out[v] = sum over taps t of w[t] * in[base[v] + off[t] ...]: one
/// depthwise tile of NVD vectors. Not inlined, for the reason directTile is
/// not: inside depthwisePlane's loops (whose stores index the tile at run
/// time) GCC 12 stored the accumulators to the stack after every tap's
/// FMAs.
__attribute__((noinline)) void depthwiseTile(const float *in,
                                             const int64_t (&base)[NVD],
                                             const int64_t *off, int64_t taps,
                                             const float *w, Vec (&out)[NVD]) {
  Vec acc[NVD];
#pragma GCC unroll 16
  for (int v = 0; v < NVD; ++v)
    acc[v] = vzero();
  for (int64_t t = 0; t < taps; ++t) {
    Vec wt = vbroadcast(w + t);
    const float *x = in + off[t];
#pragma GCC unroll 16
    for (int v = 0; v < NVD; ++v)
      acc[v] = vfma(wt, vload(x + base[v]), acc[v]);
  }
#pragma GCC unroll 16
  for (int v = 0; v < NVD; ++v)
    out[v] = acc[v];
}

/// out[p][v] = sum over channels c < C and taps t of in[c][base[p] +
/// off[t]] * w[c][t][v * VL ...]: one channel tile (PT pixels x CV vectors
/// of output channels), `w` at its block of the packed weights. Not inlined,
/// for the reason directTile is not.
__attribute__((noinline)) void channelTile(const float *in,
                                           const int64_t (&base)[PT],
                                           int64_t chanStride, int64_t C,
                                           const int64_t *off, int64_t taps,
                                           const float *w, Vec (&out)[PT][CV]) {
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

} // namespace

namespace nn_rt {
namespace NN_DIRECT_NAMESPACE {

int64_t directChannelBlock() { return CV * VL; }
int64_t directChannelTilePixels() { return PT; }

void directConvBandChannels(const ConvArgs &cv, const DirectGeometry &g,
                            const float *packedWeight, const float *scratch,
                            int64_t image, int64_t oy0, int64_t rows,
                            int64_t oBegin, int64_t oEnd,
                            const DirectPrefetch &next) {
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

int64_t directOcBlock() { return OCB; }
int64_t directTileWidth() { return TW; }
int64_t directVectorWidth() { return VL; }

void directConvBand(const ConvArgs &cv, const DirectGeometry &g,
                    const float *packedWeight, const float *scratch,
                    int64_t image, int64_t oy0, int64_t rows, int64_t oBegin,
                    int64_t oEnd, const DirectPrefetch &next) {
  BandStore s = bandStore(cv, image, oy0);
  const int64_t blockFloats = cv.C * g.taps * OCB;
  const int64_t rowVectors = (cv.OW + VL - 1) / VL;
  PrefetchWalk prefetch(next, (oEnd - oBegin + OCB - 1) / OCB *
                                  ((rows * rowVectors + NV - 1) / NV));
  for (int64_t o0 = oBegin; o0 < oEnd; o0 += OCB) {
    const float *w = packedWeight + (o0 / OCB) * blockFloats;
    const int64_t channels = cv.O - o0 < OCB ? cv.O - o0 : OCB;
    for (VectorWalk walk; walk.j < rows;) {
      VectorTile<NV> tile(walk, rows, cv.OW, g.Wq);
      Vec acc[OCB][NV];
      directTile(scratch, tile.base, g.chanStride, cv.C, g.offsets, g.taps, w,
                 acc);
      prefetch.step();
      for (int v = 0; v < tile.valid; ++v) {
        if (channels == OCB) {
#pragma GCC unroll 16
          for (int r = 0; r < OCB; ++r)
            storeVector(s, acc[r][v], o0 + r, tile.j[v], tile.x[v]);
        } else {
          for (int r = 0; r < channels; ++r)
            storeVector(s, acc[r][v], o0 + r, tile.j[v], tile.x[v]);
        }
      }
    }
  }
}

void depthwisePlane(const ConvArgs &cv, const DirectGeometry &g,
                    const float *plane, int64_t image, int64_t channel) {
  BandStore s = bandStore(cv, image, 0);
  const float *w = cv.weight + channel * g.taps;
  for (VectorWalk walk; walk.j < cv.OH;) {
    VectorTile<NVD> tile(walk, cv.OH, cv.OW, g.Wq);
    Vec acc[NVD];
    depthwiseTile(plane, tile.base, g.offsets, g.taps, w, acc);
    for (int v = 0; v < tile.valid; ++v)
      storeVector(s, acc[v], channel, tile.j[v], tile.x[v]);
  }
}

} // namespace NN_DIRECT_NAMESPACE
} // namespace nn_rt
