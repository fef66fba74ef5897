//===- DirectConvImpl.h - Direct convolution tiles for one ISA --*- C++ -*-===//
//
// The inner loops of the direct convolution (see KernelsInternal.h for the
// scratch layout), included once per instruction set by DirectConvAvx2.cpp
// and DirectConvAvx512.cpp, each compiled with that ISA's flags. The
// including file defines NN_DIRECT_NAMESPACE, the vector type `Vec` of VL
// floats with vzero/vload/vstore/vbroadcast/vfma, vectorEpilogue and
// applyEpilogueVec (nn_rt_epilogue on one vector), OCB x NV (the register
// tile: output channels x vectors of flattened pixels) and NVD (vectors per
// depthwise tile). Everything here has internal linkage so the copies never
// meet at link time.
//
// A tile keeps OCB x NV accumulators in registers over every input channel
// and tap: per tap NV unaligned vector loads of the input (from the padded
// scratch, no bounds checks) and OCB broadcasts of the packed weights feed
// OCB x NV FMAs. Output-channel blocks are the outer loop and the band's
// tiles the inner one, so a block's weights (C x taps x OCB floats: 9 KiB
// for 64 3x3 channels) stay in L1 while the band's input (sized for L2 by
// the caller) streams past, the next channel's window prefetched. Walking
// tiles outermost instead measured the same on Zen 3.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <immintrin.h>

namespace {

constexpr int64_t TW = NV * VL; // flattened pixels per tile
static_assert(TW <= nn_rt::kDirectMaxTileWidth &&
                  NVD * VL <= nn_rt::kDirectMaxTileWidth,
              "a tile reads past the planes' slack");

/// Where a band's results go: output pixel (oy0 + j, x) of flattened band
/// pixel q = j * Wq + x, for x < OW only.
struct BandStore {
  float *out; // this image's output
  nn_rt_epilogue ep;
  bool vectorEp;
  int64_t OW, OHW, Wq, oy0, qEnd;
};

BandStore bandStore(const nn_rt::ConvArgs &cv, const nn_rt::DirectGeometry &g,
                    int64_t image, int64_t oy0, int64_t rows) {
  nn_rt_epilogue ep = nn_rt::epilogueOfImage(cv.ep, image);
  return BandStore{cv.output + image * cv.O * cv.OH * cv.OW,
                   ep,
                   vectorEpilogue(ep),
                   cv.OW,
                   cv.OH * cv.OW,
                   g.Wq,
                   oy0,
                   rows * g.Wq};
}

/// Stores `v`, output channel o's results at band pixels [qv, qv + VL)
/// (qv = j * Wq + x), with the epilogue. A vector inside one output row is
/// one vector store; one that crosses the dropped columns goes lane by lane.
inline void storeVector(const BandStore &s, Vec v, int64_t o, int64_t qv,
                        int64_t j, int64_t x) {
  float *plane = s.out + o * s.OHW;
  if (x + VL <= s.OW && s.vectorEp) {
    int64_t p = (s.oy0 + j) * s.OW + x;
    vstore(plane + p, applyEpilogueVec(s.ep, v, o, p));
    return;
  }
  alignas(64) float lanes[VL];
  vstore(lanes, v);
  for (int64_t l = 0; l < VL && qv + l < s.qEnd; ++l) {
    if (x < s.OW) {
      int64_t p = (s.oy0 + j) * s.OW + x;
      plane[p] = nn_rt::applyEpilogue(s.ep, lanes[l], o, p);
    }
    if (++x == s.Wq)
      x = 0, ++j;
  }
}

/// (j, x) of q = j * Wq + x advanced by VL.
inline void advance(int64_t &j, int64_t &x, int64_t Wq) {
  x += VL;
  while (x >= Wq)
    x -= Wq, ++j;
}

/// out = sum over channels c < C and taps t of w[c][t][r] * in[c][q + off[t]
/// + v * VL ...]: one OCB x NV tile, `in` at the tile's first pixel of
/// channel 0, `w` at its block of the packed weights. The sums build in a
/// local array only ever indexed by unrolled constants, which GCC keeps in
/// registers (`out`, indexed at run time by partial stores, lives in memory:
/// accumulating there directly stored every FMA's result).
__attribute__((always_inline)) inline void
directTile(const float *in, int64_t chanStride, int64_t C, const int64_t *off,
           int64_t taps, const float *w, Vec (&out)[OCB][NV]) {
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
      _mm_prefetch(reinterpret_cast<const char *>(x + chanStride),
                   _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(x + chanStride + TW - 1),
                   _MM_HINT_T0);
      Vec xv[NV];
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v)
        xv[v] = vload(x + v * VL);
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

} // namespace

namespace nn_rt {
namespace NN_DIRECT_NAMESPACE {

int64_t directOcBlock() { return OCB; }
int64_t directTileWidth() { return TW; }

void directConvBand(const ConvArgs &cv, const DirectGeometry &g,
                    const float *packedWeight, const float *scratch,
                    int64_t image, int64_t oy0, int64_t rows) {
  BandStore s = bandStore(cv, g, image, oy0, rows);
  const int64_t blockFloats = cv.C * g.taps * OCB;
  for (int64_t o0 = 0; o0 < cv.O; o0 += OCB) {
    const float *w = packedWeight + (o0 / OCB) * blockFloats;
    const int64_t channels = cv.O - o0 < OCB ? cv.O - o0 : OCB;
    for (int64_t q = 0, j = 0, x = 0; q < s.qEnd; q += TW) {
      Vec acc[OCB][NV];
      directTile(scratch + q, g.chanStride, cv.C, g.offsets, g.taps, w, acc);
      for (int v = 0; v < NV; ++v) {
        if (q + v * VL < s.qEnd) {
          if (channels == OCB) {
#pragma GCC unroll 16
            for (int r = 0; r < OCB; ++r)
              storeVector(s, acc[r][v], o0 + r, q + v * VL, j, x);
          } else {
            for (int r = 0; r < channels; ++r)
              storeVector(s, acc[r][v], o0 + r, q + v * VL, j, x);
          }
        }
        advance(j, x, g.Wq);
      }
    }
  }
}

void depthwisePlane(const ConvArgs &cv, const DirectGeometry &g,
                    const float *plane, int64_t image, int64_t channel) {
  BandStore s = bandStore(cv, g, image, 0, cv.OH);
  const float *w = cv.weight + channel * g.taps;
  for (int64_t q = 0, j = 0, x = 0; q < s.qEnd; q += NVD * VL) {
    Vec acc[NVD];
#pragma GCC unroll 16
    for (int v = 0; v < NVD; ++v)
      acc[v] = vzero();
    for (int64_t t = 0; t < g.taps; ++t) {
      Vec wt = vbroadcast(w + t);
      const float *in = plane + q + g.offsets[t];
#pragma GCC unroll 16
      for (int v = 0; v < NVD; ++v)
        acc[v] = vfma(wt, vload(in + v * VL), acc[v]);
    }
    for (int v = 0; v < NVD && q + v * VL < s.qEnd; ++v) {
      storeVector(s, acc[v], channel, q + v * VL, j, x);
      advance(j, x, g.Wq);
    }
  }
}

} // namespace NN_DIRECT_NAMESPACE
} // namespace nn_rt
