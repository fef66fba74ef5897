//===- DirectConv.cpp - Direct and depthwise convolution drivers ----------===//
//
// The ISA-independent half of the direct convolution (the layout is in
// KernelsInternal.h, the tiles in DirectConvImpl.h): the choice of bands,
// the zero-padded, stride-phase-split copy of a band's input that lets the
// tiles run without a gather or a bounds check, the weight packing, and the
// split of (image, band) units over the thread pool. Also the depthwise
// entry point nn_rt_conv2d_depthwise_nchw, which reads a plane in place
// where the output has the input's size at stride 1 (MobileNet's and
// EfficientNet's stride-1 layers: the lane masks of the flattened plane
// are built here once per shape) and, with AVX-512, for a 3x3 or 5x5
// window at stride 2 padded by K / 2, and otherwise runs the same scratch one
// channel plane at a time.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <atomic>
#include <stdlib.h>
#include <string.h>

namespace {

using nn_rt::ConvArgs;
using nn_rt::DirectGeometry;

using nn_rt::maxI;
using nn_rt::minI;
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Below this many multiply-adds a convolution runs on the calling thread
/// alone (as nn_rt_sgemm does, with the same bound and reason, see
/// Dispatch.cpp). A depthwise multiply-add moves a load per FMA instead of a
/// third of one, so its threshold is lower.
constexpr double kMinParallelWork = 1 << 21;
constexpr double kMinParallelDepthwiseWork = 1 << 18;

/// Floats of a band's scratch the tiles should find in L2 (Zen 3 and recent
/// Intel cores have >= 512 KiB), beside the packed weights of a 64-channel
/// 3x3 layer (144 KiB). W2's layer ran within 1% from 64 to 384 KiB.
constexpr int64_t kBandBudgetFloats = 192 * 1024 / sizeof(float);

/// The row pitch of `cv`'s scratch planes: OW and the widest tap reach.
int64_t scratchPitch(const ConvArgs &cv) {
  return cv.OW + (cv.KW - 1) * cv.dilationW / cv.strideW;
}

/// The scratch layout of `cv` for bands of `bandRows` output rows.
DirectGeometry directGeometry(const ConvArgs &cv, int64_t bandRows) {
  DirectGeometry g;
  const int64_t sH = cv.strideH, sW = cv.strideW;
  g.maxRy = (cv.KH - 1) * cv.dilationH / sH;
  g.Wq = scratchPitch(cv);
  int64_t maxRx = g.Wq - cv.OW;
  g.bandRows = bandRows;
  g.planeRows = bandRows + g.maxRy;
  // A tile starting before qEnd = rows * Wq reads up to TW - 1 pixels past
  // it, each displaced by at most maxRy rows and maxRx columns.
  g.planeSize =
      (g.planeRows * g.Wq + nn_rt::kDirectMaxTileWidth + maxRx + 15) / 16 * 16;
  g.chanStride = sH * sW * g.planeSize;
  g.taps = cv.KH * cv.KW;
  memset(g.phaseUsed, 0, sizeof g.phaseUsed);
  for (int64_t ky = 0; ky < cv.KH; ++ky)
    for (int64_t kx = 0; kx < cv.KW; ++kx) {
      int64_t dy = ky * cv.dilationH, dx = kx * cv.dilationW;
      int64_t phase = (dy % sH) * sW + dx % sW;
      g.phaseUsed[phase] = true;
      g.offsets[ky * cv.KW + kx] =
          phase * g.planeSize + (dy / sH) * g.Wq + dx / sW;
    }
  return g;
}

/// The input rows the band fill reads for the band at output row oy0 of
/// `image`: rows [oy0 * sH - padTop, (oy0 + planeRows) * sH - padTop) of
/// every channel, cut to the image.
nn_rt::DirectPrefetch bandSource(const ConvArgs &cv, const DirectGeometry &g,
                                 int64_t image, int64_t oy0) {
  int64_t first = maxI(0, oy0 * cv.strideH - cv.padTop);
  int64_t last = minI(cv.H, (oy0 + g.planeRows) * cv.strideH - cv.padTop);
  if (last <= first)
    return {};
  return {cv.input + (image * cv.C * cv.H + first) * cv.W, cv.C, cv.H * cv.W,
          (last - first) * cv.W};
}

/// A thread's band scratch, kept across calls; parallel loops over bands
/// size it on all their threads first (scratchFor).
float *scratch(int64_t floats) {
  float *buffer = nn_rt::keptBuffer(nn_rt::Kept::directScratch, floats);
  if (!buffer && floats > 0)
    abort(); // out of memory: the ABI has no error path for a kernel
  return buffer;
}

/// The kept buffers of a loop whose pieces take `floats` of scratch().
nn_rt::LoopScratch scratchFor(int64_t floats) {
  return nn_rt::withScratch({}, nn_rt::Kept::directScratch, floats);
}

using BandFn = void (*)(const ConvArgs &, const DirectGeometry &, const float *,
                        const float *, int64_t, int64_t, int64_t, int64_t,
                        int64_t, const nn_rt::DirectPrefetch &);
using PlaneFn = void (*)(const ConvArgs &, const DirectGeometry &, float *,
                         int64_t, int64_t);

using FillFn = void (*)(const ConvArgs &, const DirectGeometry &, const float *,
                        int64_t, int64_t, int64_t, float *);

FillFn bandFill() {
  return nn_rt::directConvIsa() == nn_rt::IsaLevel::avx512
             ? nn_rt::avx512::fillBand
             : nn_rt::avx2::fillBand;
}

BandFn bandKernel(nn_rt::DirectTiles tiles) {
  bool avx512 = nn_rt::directConvIsa() == nn_rt::IsaLevel::avx512;
  if (tiles == nn_rt::DirectTiles::channels)
    return avx512 ? nn_rt::avx512::directConvBandChannels
                  : nn_rt::avx2::directConvBandChannels;
  if (tiles == nn_rt::DirectTiles::narrowChannels)
    return avx512 ? nn_rt::avx512::directConvBandNarrowChannels
                  : nn_rt::avx2::directConvBandNarrowChannels;
  return avx512 ? nn_rt::avx512::directConvBand : nn_rt::avx2::directConvBand;
}

struct DirectSplit {
  const ConvArgs *cv;
  const DirectGeometry *g;
  const float *packed;
  int64_t bands;
  /// Output channels per group (a multiple of the kernel's block), and
  /// groups per band: each (image, band, group) unit computes its group's
  /// channels of the band.
  int64_t groupChannels, groups;
  BandFn band;
};

/// Units [begin, end) are (image, band, group) triples, group-minor, then
/// band-major within an image. A band's input is copied into the scratch
/// once for the consecutive units of its groups.
void directChunk(void *ctx, int64_t begin, int64_t end) {
  auto *s = static_cast<DirectSplit *>(ctx);
  const ConvArgs &cv = *s->cv;
  const DirectGeometry &g = *s->g;
  float *buffer = scratch(cv.C * g.chanStride + nn_rt::kFillSpill);
  const FillFn fill = bandFill();
  int64_t filled = -1; // the (image, band) in the buffer
  for (int64_t u = begin; u < end; ++u) {
    int64_t unitBand = u / s->groups, group = u % s->groups;
    int64_t image = unitBand / s->bands,
            oy0 = (unitBand % s->bands) * g.bandRows;
    int64_t rows = minI(g.bandRows, cv.OH - oy0);
    if (unitBand != filled) {
      fill(cv, g, cv.input + image * cv.C * cv.H * cv.W, 0, cv.C, oy0, buffer);
      filled = unitBand;
    }
    nn_rt::DirectPrefetch next = {};
    int64_t nextBand = (u + 1) / s->groups;
    if (u + 1 < end && nextBand != unitBand)
      next = bandSource(cv, g, nextBand / s->bands,
                        (nextBand % s->bands) * g.bandRows);
    int64_t oBegin = group * s->groupChannels;
    s->band(cv, g, s->packed, buffer, image, oy0, rows, oBegin,
            minI(cv.O, oBegin + s->groupChannels), next);
  }
}

/// Output rows per band: the scratch within kBandBudgetFloats, at least
/// four units per thread so that the contiguous chunks of
/// nn_rt_parallel_for stay balanced, and, among the sizes that allows, the
/// one that computes the fewest vectors of `vectorWidth` pixels in tiles of
/// `tileWidth` (a band's last tile is cut at its end: 8 rows of 7 vectors
/// are 18 2/3 tiles of 3, 9 rows exactly 21).
int64_t bandRows(const ConvArgs &cv, int64_t threads, int64_t vectorWidth,
                 int64_t tileWidth, bool canJoin) {
  int64_t Wq = scratchPitch(cv);
  int64_t rowFloats = cv.C * cv.strideH * cv.strideW * Wq;
  int64_t maxRy = (cv.KH - 1) * cv.dilationH / cv.strideH;
  int64_t most = minI(cv.OH, maxI(1, kBandBudgetFloats / rowFloats - maxRy));
  if (threads > 1 && cv.N * ceilDiv(cv.OH, most) < 4 * threads) {
    int64_t bands = minI(cv.OH, ceilDiv(4 * threads, cv.N));
    most = minI(most, ceilDiv(cv.OH, bands));
  }
  const int64_t tileVectors = tileWidth / vectorWidth;
  auto vectors = [&](int64_t rows) {
    return rows == 0 ? 0
                     : nn_rt::directVectors(
                           rows, cv.OW, Wq, vectorWidth,
                           nn_rt::directJoinRows(rows, cv.OW, Wq, vectorWidth,
                                                 canJoin));
  };
  auto computed = [&](int64_t rows) {
    int64_t full = cv.OH / rows, last = cv.OH % rows;
    return full * ceilDiv(vectors(rows), tileVectors) +
           ceilDiv(vectors(last), tileVectors);
  };
  // Half the largest band still amortizes the maxRy rows each band re-reads.
  int64_t best = most;
  for (int64_t rows = most; rows >= maxI(1, most / 2); --rows)
    if (computed(rows) < computed(best))
      best = rows;
  return best;
}

/// True when `cv` (of `channelsPerOut` input channels per output channel)
/// has at least `minWork` multiply-adds to share among `threads` > 1.
bool parallel(const ConvArgs &cv, int64_t threads, int64_t channelsPerOut,
              double minWork) {
  return threads > 1 &&
         double(cv.N) * cv.O * cv.OH * cv.OW * channelsPerOut * cv.KH * cv.KW >=
             minWork;
}

// --- Depthwise ---------------------------------------------------------------

/// The reference loops, for CPUs without AVX2 + FMA.
void scalarDepthwisePlane(const ConvArgs &cv, const DirectGeometry &, float *,
                          int64_t image, int64_t ch) {
  const float *in = cv.input + (image * cv.C + ch) * cv.H * cv.W;
  const float *w = cv.weight + ch * cv.KH * cv.KW;
  float *out = cv.output + (image * cv.O + ch) * cv.OH * cv.OW;
  nn_rt_epilogue ep = nn_rt::epilogueOfImage(cv.ep, image);
  for (int64_t oy = 0; oy < cv.OH; ++oy)
    for (int64_t ox = 0; ox < cv.OW; ++ox) {
      float acc = 0.f;
      for (int64_t ky = 0; ky < cv.KH; ++ky)
        for (int64_t kx = 0; kx < cv.KW; ++kx) {
          int64_t iy = oy * cv.strideH - cv.padTop + ky * cv.dilationH;
          int64_t ix = ox * cv.strideW - cv.padLeft + kx * cv.dilationW;
          if (iy >= 0 && iy < cv.H && ix >= 0 && ix < cv.W)
            acc += in[iy * cv.W + ix] * w[ky * cv.KW + kx];
        }
      out[oy * cv.OW + ox] = nn_rt::applyEpilogue(ep, acc, ch, oy * cv.OW + ox);
    }
}

/// A depthwise plane's scratch (the vector kernels'): its phase planes
/// (DirectGeometry of all OH rows), then its sums (OH rows of Wq in whole
/// vectors, and room for a whole tile where they are fewer), which also
/// take what the fill runs past the planes.
int64_t depthwiseScratchFloats(const ConvArgs &cv, const DirectGeometry &g) {
  return g.chanStride + ceilDiv(cv.OH * g.Wq, 16) * 16 +
         nn_rt::kDirectMaxTileWidth;
}

struct DepthwiseSplit {
  const ConvArgs *cv;
  const DirectGeometry *g;
  PlaneFn plane;
  int64_t scratchFloats;
};

/// Units [begin, end) are (image, channel) pairs.
void depthwiseChunk(void *ctx, int64_t begin, int64_t end) {
  auto *s = static_cast<DepthwiseSplit *>(ctx);
  const ConvArgs &cv = *s->cv;
  float *buffer = s->scratchFloats ? scratch(s->scratchFloats) : nullptr;
  for (int64_t u = begin; u < end; ++u)
    s->plane(cv, *s->g, buffer, u / cv.C, u % cv.C);
}

/// Whether the vector kernels can run depthwise convolution `cv` on its
/// input in place (the ISA's depthwiseSamePlane): stride 1 and no dilation,
/// padding that keeps the planes' size, so that input and output pixels
/// share their flattened index and each tap is one offset from it.
bool sameSizeDepthwise(const ConvArgs &cv) {
  const nn_rt::IsaLevel isa = nn_rt::directConvIsa();
  // With AVX2 the masked loads cost more than the copy saves on wide
  // planes (Zen 5: 112x112 12.7 ns a vector in place, 10.1 copied; 56x56
  // 12.8, 10.2), not on narrow ones (7x7: 16.3, 24.2).
  const int64_t maxWidth = isa == nn_rt::IsaLevel::avx512 ? cv.W : 15;
  return isa != nn_rt::IsaLevel::scalar && cv.W <= maxWidth &&
         cv.strideH == 1 && cv.strideW == 1 && cv.dilationH == 1 &&
         cv.dilationW == 1 && cv.OH == cv.H && cv.OW == cv.W &&
         cv.padTop >= 0 && cv.padTop < cv.KH && cv.padLeft >= 0 &&
         cv.padLeft < cv.KW && cv.KH * cv.KW <= nn_rt::kDirectMaxTaps;
}

/// The uint16 lane masks of depthwiseSamePlane for `cv`, in vectors of VL
/// lanes and groups of `group` vectors.
int64_t sameSizeMaskCount(const ConvArgs &cv, int64_t VL, int64_t group) {
  return ceilDiv(ceilDiv(cv.H * cv.W, VL), group) * group * cv.KH * cv.KW;
}

/// Writes depthwiseSamePlane's masks, using `columns` (cv.KW x cv.W) for
/// the column lanes. A vector at row r, column c keeps for kernel row ky
/// the lanes whose row moved by ky - padTop is inside the image (lanes
/// [k W - c, (k + 1) W - c) are on row r + k), and for kernel column kx
/// those whose column moved by kx - padLeft is inside their row: a pattern
/// of c alone, columns[kx][c], each column's the one before's shifted down
/// by a lane with the lane past them added.
void sameSizeMasks(const ConvArgs &cv, int64_t VL, int64_t group,
                   uint16_t *masks, uint16_t *columns) {
  const int64_t H = cv.H, W = cv.W, KH = cv.KH, KW = cv.KW, taps = KH * KW;
  for (int64_t kx = 0; kx < KW; ++kx) {
    auto inside = [&](int64_t x) {
      x += kx - cv.padLeft;
      return uint32_t(x >= 0 && x < W);
    };
    uint32_t lanes = 0;
    for (int64_t l = 0, x = 0; l < VL; ++l, x = x + 1 == W ? 0 : x + 1)
      lanes |= inside(x) << l;
    for (int64_t c = 0, x = VL % W; c < W; ++c, x = x + 1 == W ? 0 : x + 1) {
      columns[kx * W + c] = uint16_t(lanes);
      lanes = lanes >> 1 | inside(x) << (VL - 1);
    }
  }
  const int64_t count = sameSizeMaskCount(cv, VL, group);
  const int64_t vectors = ceilDiv(H * W, VL);
  for (int64_t v = 0, r = 0, c = 0; v < vectors; ++v) {
    for (int64_t ky = 0; ky < KH; ++ky) {
      const int64_t dy = ky - cv.padTop;
      const int64_t lo = maxI(0, -dy - r) * W - c,
                    hi = minI(H - r, H - dy - r) * W - c;
      const uint32_t rowLanes =
          hi <= lo || hi <= 0 || lo >= VL
              ? 0u
              : uint32_t((1ull << minI(hi, VL)) - (1ull << maxI(lo, 0)));
      for (int64_t kx = 0; kx < KW; ++kx)
        masks[v * taps + ky * KW + kx] =
            uint16_t(rowLanes & columns[kx * W + c]);
    }
    c += VL % W;
    r += VL / W;
    if (c >= W)
      c -= W, ++r;
  }
  for (int64_t i = vectors * taps; i < count; ++i)
    masks[i] = 0;
}

/// depthwiseSamePlane's masks for `cv`, built into the calling thread's
/// kept buffer, or found there from its last call on planes of the same
/// shape (MobileNetV2's blocks run their depthwise layers on planes of 5
/// shapes): a key of the shape, then the masks, then the column lanes they
/// were made of.
const uint16_t *sameSizeMasksFor(const ConvArgs &cv, int64_t VL,
                                 int64_t group) {
  const int64_t key[] = {cv.H,      cv.W,       cv.KH, cv.KW,
                         cv.padTop, cv.padLeft, VL,    group};
  constexpr int64_t kKeyFloats = int64_t(sizeof(key)) / int64_t(sizeof(float));
  const int64_t count = sameSizeMaskCount(cv, VL, group);
  const int64_t floats = kKeyFloats + ceilDiv(count + cv.KW * cv.W, 2);
  // A buffer that must grow is a new one: nothing kept in it.
  const bool kept = nn_rt::keptFloats(nn_rt::Kept::laneMasks) >= floats;
  float *buffer = nn_rt::keptBuffer(nn_rt::Kept::laneMasks, floats);
  if (!buffer)
    abort(); // out of memory: the ABI has no error path for a kernel
  auto *masks = reinterpret_cast<uint16_t *>(buffer + kKeyFloats);
  if (kept && memcmp(buffer, key, sizeof key) == 0)
    return masks;
  sameSizeMasks(cv, VL, group, masks, masks + count);
  memcpy(buffer, key, sizeof key);
  return masks;
}

/// Whether depthwise convolution `cv` is a 3x3 or 5x5 window at stride 2
/// padded by K / 2 that the AVX-512 kernels read in place
/// (depthwiseStride2Plane).
bool stride2Depthwise(const ConvArgs &cv) {
  return nn_rt::directConvIsa() == nn_rt::IsaLevel::avx512 &&
         (cv.KH == 3 || cv.KH == 5) && cv.KW == cv.KH && cv.strideH == 2 &&
         cv.strideW == 2 && cv.dilationH == 1 && cv.dilationW == 1 &&
         cv.padTop == cv.KH / 2 && cv.padLeft == cv.KW / 2;
}

/// Units [begin, end) are (image, channel) pairs.
void stride2Chunk(void *ctx, int64_t begin, int64_t end) {
  const ConvArgs &cv = *static_cast<const ConvArgs *>(ctx);
  for (int64_t u = begin; u < end; ++u)
    nn_rt::avx512::depthwiseStride2Plane(cv, u / cv.C, u % cv.C);
}

using SamePlaneFn = void (*)(const ConvArgs &, const uint16_t *, int64_t,
                             int64_t);

struct SameSizeSplit {
  const ConvArgs *cv;
  const uint16_t *masks;
  SamePlaneFn plane;
};

/// Units [begin, end) are (image, channel) pairs.
void sameSizeChunk(void *ctx, int64_t begin, int64_t end) {
  auto *s = static_cast<SameSizeSplit *>(ctx);
  for (int64_t u = begin; u < end; ++u)
    s->plane(*s->cv, s->masks, u / s->cv->C, u % s->cv->C);
}

} // namespace

namespace nn_rt {

int64_t directConvTileWidth() {
  return directConvIsa() == IsaLevel::avx512 ? avx512::directTileWidth()
                                             : avx2::directTileWidth();
}

int64_t directConvVectorWidth() {
  return directConvIsa() == IsaLevel::avx512 ? avx512::directVectorWidth()
                                             : avx2::directVectorWidth();
}

bool directConvJoinsRows() {
  return directConvIsa() == IsaLevel::avx512 ? avx512::directJoinsRows()
                                             : avx2::directJoinsRows();
}

namespace {
/// setDirectConvIsa's level, or -1 for none.
std::atomic<int> isaOverride{-1};
} // namespace

IsaLevel directConvIsa() {
  IsaLevel level = isaLevel();
  int forced = isaOverride.load(std::memory_order_relaxed);
  if (forced >= 0)
    return IsaLevel(forced) < level ? IsaLevel(forced) : level;
  // Zen 4 runs AVX-512 on 256-bit units: there the AVX2 tiles, which do
  // the same sums in the same order, measured 10% faster (W2 17.5 against
  // 19.7 ms, W3 72 against 80, ResNet-18 at batch 8 310 against 341).
  if (level == IsaLevel::avx512 && avx512OnHalfWidthUnits())
    return IsaLevel::avx2;
  return level;
}

void setDirectConvIsa(IsaLevel isa) {
  isaOverride.store(int(isa), std::memory_order_relaxed);
}

void clearDirectConvIsa() { isaOverride.store(-1, std::memory_order_relaxed); }

int64_t directConvBlock(DirectTiles tiles) {
  bool avx512 = directConvIsa() == IsaLevel::avx512;
  if (tiles != DirectTiles::pixels)
    return avx512 ? avx512::directChannelBlock() : avx2::directChannelBlock();
  return avx512 ? avx512::directOcBlock() : avx2::directOcBlock();
}

/// Output pixels per channel tile of `tiles` on this CPU.
static int64_t directChannelTilePixels(DirectTiles tiles) {
  bool avx512 = directConvIsa() == IsaLevel::avx512;
  if (tiles == DirectTiles::narrowChannels)
    return avx512 ? avx512::directNarrowChannelTilePixels()
                  : avx2::directNarrowChannelTilePixels();
  return avx512 ? avx512::directChannelTilePixels()
                : avx2::directChannelTilePixels();
}

bool vectorWindow(const ConvArgs &cv) {
  return nn_rt::isaLevel() != nn_rt::IsaLevel::scalar &&
         cv.KH * cv.KW <= nn_rt::kDirectMaxTaps && cv.strideH >= 1 &&
         cv.strideW >= 1 && cv.strideH <= nn_rt::kDirectMaxStride &&
         cv.strideW <= nn_rt::kDirectMaxStride && cv.dilationH >= 1 &&
         cv.dilationW >= 1 && cv.padTop >= 0 && cv.padLeft >= 0;
}

/// The part of `size` lanes that `size` values fill when they are computed
/// in whole vectors of `lanes`.
static double laneUse(int64_t size, int64_t lanes) {
  return double(size) / double(ceilDiv(size, lanes) * lanes);
}

/// The part of the lanes the pixel tiles (vectors of a row's pixels, or of
/// rows joined) and the channel tiles (vectors of output channels, pixels
/// taken over rows) fill on `cv` (the pixel tiles' in one band of all rows).
static double pixelTileUse(const ConvArgs &cv) {
  const int64_t VL = directConvVectorWidth(), Wq = scratchPitch(cv);
  bool joined = directJoinRows(cv.OH, cv.OW, Wq, VL, directConvJoinsRows());
  return double(cv.OH * cv.OW) /
         double(directVectors(cv.OH, cv.OW, Wq, VL, joined) * VL);
}
/// The channel tiles' results leave through a transposing buffer and the
/// scalar epilogue, at about this many vector FMAs' time per output value
/// (which takes C * taps / VL of them): on W2 (3x3, 64 channels in, 56x56;
/// Zen 4, AVX-512) the channel tiles, at 100% of their lanes, ran 2.5%
/// slower than the pixel tiles at 87.5%, their stores 11% of the time.
constexpr double kChannelStoreFmas = 6;

static double channelTileUse(const ConvArgs &cv, DirectTiles tiles) {
  double fmas = double(cv.C * cv.KH * cv.KW) / directConvVectorWidth();
  return laneUse(cv.O, directConvBlock(tiles)) *
         laneUse(cv.OH * cv.OW, directChannelTilePixels(tiles)) * fmas /
         (fmas + kChannelStoreFmas);
}

/// The narrow channel tiles feed fewer FMAs per weight load: on ResNet-18's
/// 14x14 layers (Zen 5, AVX-512), where both fill every lane, the 7-pixel
/// tiles ran 6% slower than the 14-pixel ones. They are taken where they
/// fill this much more of their lanes.
constexpr double kNarrowChannelTileCost = 1.06;

/// The direct kernel's tiles that fill the largest part of their lanes on
/// `cv` (the narrow channel tiles' part discounted by their cost), and
/// that part.
struct TileChoice {
  DirectTiles tiles;
  double use;
};
static TileChoice bestDirectTiles(const ConvArgs &cv) {
  TileChoice best = {DirectTiles::pixels, pixelTileUse(cv)};
  for (TileChoice c :
       {TileChoice{DirectTiles::channels,
                   channelTileUse(cv, DirectTiles::channels)},
        TileChoice{DirectTiles::narrowChannels,
                   channelTileUse(cv, DirectTiles::narrowChannels) /
                       kNarrowChannelTileCost}})
    if (c.use > best.use)
      best = c;
  return best;
}

DirectTiles directConvTiles(const ConvArgs &cv) {
  return bestDirectTiles(cv).tiles;
}

bool directConvApplies(const ConvArgs &cv) {
  if (!vectorWindow(cv))
    return false;
  // A 1x1 window without stride or padding reads the image as the GEMM's B
  // in place: a plain GEMM, with K = C reused across a 6 x 16 tile.
  bool plainGemm = cv.KH == 1 && cv.KW == 1 && cv.strideH == 1 &&
                   cv.strideW == 1 && cv.padTop == 0 && cv.padLeft == 0 &&
                   cv.OH == cv.H && cv.OW == cv.W;
  if (plainGemm)
    return false;
  // The direct tiles compute whole vectors of one output row (or of rows
  // joined), the GEMM whole column tiles of an image's pixels (after an
  // im2col copy). Rows much narrower than a vector, not joined, waste most
  // lanes of the first: ResNet's 7x7 layers used 7 of 16 AVX-512 lanes
  // there, 49 of 64 columns in the GEMM, which measured 21% faster on
  // ResNet-18 at batch 1 (Zen 4). At 28x28 (28 of 32 lanes, 784 of 800
  // columns) the im2col copy made the GEMM 3% slower, hence the margin.
  int64_t gemmColumns =
      isaLevel() == IsaLevel::avx512 ? avx512::nr() : avx2::nr();
  return laneUse(cv.OH * cv.OW, gemmColumns) <= 1.25 * bestDirectTiles(cv).use;
}

int64_t directPackedWeightSize(int64_t O, int64_t C, int64_t taps,
                               int64_t block) {
  return (O + block - 1) / block * block * C * taps;
}

void packDirectConvWeights(const float *weight, int64_t O, int64_t C,
                           int64_t taps, int64_t block, float *dst) {
  for (int64_t o0 = 0; o0 < O; o0 += block)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t t = 0; t < taps; ++t)
        for (int64_t r = 0; r < block; ++r, ++dst)
          *dst = o0 + r < O ? weight[((o0 + r) * C + c) * taps + t] : 0.f;
}

void runDirectConv(const ConvArgs &cv, const float *packedWeight) {
  runDirectConv(cv, packedWeight, directConvTiles(cv));
}

void runDirectConv(const ConvArgs &cv, const float *packedWeight,
                   DirectTiles tiles) {
  const int64_t taps = cv.KH * cv.KW, block = directConvBlock(tiles);
  if (!packedWeight) {
    float *packed =
        perCallConvWeights(directPackedWeightSize(cv.O, cv.C, taps, block));
    if (!packed)
      abort(); // out of memory: the ABI has no error path for a kernel
    packDirectConvWeights(cv.weight, cv.O, cv.C, taps, block, packed);
    packedWeight = packed;
  }
  int64_t threads = nn_rt_get_num_threads();
  bool split = parallel(cv, threads, cv.C, kMinParallelWork);
  // The channel tiles take the band's pixels over its rows, PT at a time.
  const bool channels = tiles != DirectTiles::pixels;
  const int64_t vectorWidth = channels ? 1 : directConvVectorWidth(),
                tileWidth = channels ? directChannelTilePixels(tiles)
                                     : directConvTileWidth();
  // Bands as large as the scratch allows. Too few (image, band) units for
  // four per thread (a small batch): the output channels are split first,
  // in groups of whole blocks, as each group re-reads only its band's input
  // (its multiply-adds are C·taps times more); then, if still too few, the
  // rows, into smaller bands whose halo rows each re-read and whose tiles
  // fill less.
  const bool canJoin = !channels && directConvJoinsRows();
  int64_t rows = bandRows(cv, 1, vectorWidth, tileWidth, canJoin);
  int64_t blocks = ceilDiv(cv.O, block), groups = 1;
  if (split) {
    int64_t units = cv.N * ceilDiv(cv.OH, rows);
    groups = minI(blocks, ceilDiv(4 * threads, units));
    if (units * groups < 4 * threads)
      rows = bandRows(cv, ceilDiv(threads, groups), vectorWidth, tileWidth,
                      canJoin);
  }
  DirectGeometry g = directGeometry(cv, rows);
  int64_t bands = ceilDiv(cv.OH, g.bandRows);
  int64_t groupBlocks = ceilDiv(blocks, groups);
  groups = ceilDiv(blocks, groupBlocks);
  DirectSplit s{&cv,
                &g,
                packedWeight,
                bands,
                groupBlocks * block,
                groups,
                bandKernel(tiles)};
  if (split)
    nn_rt::parallelFor(cv.N * bands * groups, directChunk, &s,
                       scratchFor(cv.C * g.chanStride + nn_rt::kFillSpill));
  else
    directChunk(&s, 0, cv.N * bands * groups);
}

} // namespace nn_rt

extern "C" void nn_rt_conv2d_depthwise_nchw(
    int64_t N, int64_t C, int64_t H, int64_t W, const float *input, int64_t KH,
    int64_t KW, const float *weight, int64_t strideH, int64_t strideW,
    int64_t padTop, int64_t padLeft, int64_t dilationH, int64_t dilationW,
    int64_t OH, int64_t OW, float *output, const nn_rt_epilogue *epilogue) {
  if (N <= 0 || C <= 0 || OH <= 0 || OW <= 0)
    return;
  ConvArgs cv = nn_rt::convArgs(N, C, H, W, input, C, KH, KW, weight, strideH,
                                strideW, padTop, padLeft, dilationH, dilationW,
                                OH, OW, output, epilogue);
  const int64_t threads = nn_rt_get_num_threads();
  const bool split = parallel(cv, threads, 1, kMinParallelDepthwiseWork);
  if (sameSizeDepthwise(cv)) {
    const bool avx512 = nn_rt::directConvIsa() == nn_rt::IsaLevel::avx512;
    const int64_t VL = nn_rt::directConvVectorWidth(),
                  group = avx512 ? nn_rt::avx512::depthwiseSameGroup()
                                 : nn_rt::avx2::depthwiseSameGroup();
    SameSizeSplit s{&cv, sameSizeMasksFor(cv, VL, group),
                    avx512 ? nn_rt::avx512::depthwiseSamePlane
                           : nn_rt::avx2::depthwiseSamePlane};
    if (split)
      nn_rt::parallelFor(N * C, sameSizeChunk, &s, {});
    else
      sameSizeChunk(&s, 0, N * C);
    return;
  }
  if (stride2Depthwise(cv)) {
    if (split)
      nn_rt::parallelFor(N * C, stride2Chunk, &cv, {});
    else
      stride2Chunk(&cv, 0, N * C);
    return;
  }
  // Windows the scratch cannot hold (and CPUs without AVX2) take the
  // reference loops.
  PlaneFn plane = scalarDepthwisePlane;
  DirectGeometry g = {};
  int64_t scratchFloats = 0;
  if (vectorWindow(cv)) {
    plane = nn_rt::directConvIsa() == nn_rt::IsaLevel::avx512
                ? nn_rt::avx512::depthwisePlane
                : nn_rt::avx2::depthwisePlane;
    g = directGeometry(cv, OH);
    scratchFloats = depthwiseScratchFloats(cv, g);
  }
  DepthwiseSplit s{&cv, &g, plane, scratchFloats};
  if (split)
    nn_rt::parallelFor(N * C, depthwiseChunk, &s, scratchFor(scratchFloats));
  else
    depthwiseChunk(&s, 0, N * C);
}
