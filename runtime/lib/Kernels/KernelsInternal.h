//===- KernelsInternal.h - Between the dispatcher and the ISA kernels -----===//
//
// Plain structs only: this header is included by files compiled with
// different -m flags, so it defines no inline code with external linkage.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_KERNELS_INTERNAL_H
#define NN_RUNTIME_KERNELS_INTERNAL_H

#include "nn/Runtime/Kernels.h"

#include <stdint.h>
#include <stdlib.h>

namespace nn_rt {

/// The operands of nn_rt_sgemm (see Kernels.h). `ep` is always valid (all
/// zeros for no epilogue); its addends are already offset to this GEMM's
/// image.
struct GemmArgs {
  int64_t M, N, K;
  const float *A;
  int64_t rsA, csA;
  const float *B;
  int64_t rsB, csB;
  float *C;
  int64_t rsC;
  bool accumulate;
  nn_rt_epilogue ep;
  /// B in the ISA's packed layout (packAllB, packBPanels), or null: B is read
  /// through the strides and packed per block.
  const float *packedB;
  /// B in windows (nn_rt_sgemm_b_windows), or null: columns
  /// [w * bWindowCols, (w + 1) * bWindowCols) of B are the columns of one
  /// strided matrix from row bRowOffsets[w] on (see bElement).
  const int64_t *bRowOffsets;
  int64_t bWindowCols;
};

/// The smaller and the larger of two sizes (the kernels use no <algorithm>).
static inline int64_t minI(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t maxI(int64_t a, int64_t b) { return a > b ? a : b; }

/// Where B[k, n] of `g` is, windows included.
static inline const float *bElement(const GemmArgs &g, int64_t k, int64_t n) {
  if (!g.bRowOffsets)
    return g.B + k * g.rsB + n * g.csB;
  int64_t w = n / g.bWindowCols;
  return g.B + (k + g.bRowOffsets[w]) * g.rsB + (n - w * g.bWindowCols) * g.csB;
}

/// The operands of nn_rt_conv2d_nchw.
struct ConvArgs {
  int64_t N, C, H, W;
  const float *input;
  int64_t O, KH, KW;
  const float *weight;
  int64_t strideH, strideW, padTop, padLeft, dilationH, dilationW, OH, OW;
  float *output;
  nn_rt_epilogue ep;
  /// The weights in the ISA's packed layout (packWeights), shared by every
  /// image and thread of one call; null: packed per block.
  const float *packedWeight;
};

/// `ep`, or no epilogue (all zeros) when null: what an entry point's
/// optional epilogue argument means.
static inline nn_rt_epilogue epilogueOrNone(const nn_rt_epilogue *ep) {
  if (ep)
    return *ep;
  nn_rt_epilogue none = {};
  return none;
}

/// The ConvArgs of a convolution entry point's arguments, in their order
/// (nn_rt_conv2d_nchw's); a null epilogue is none, and the weights are
/// packed per call (no packedWeight).
static inline ConvArgs
convArgs(int64_t N, int64_t C, int64_t H, int64_t W, const float *input,
         int64_t O, int64_t KH, int64_t KW, const float *weight,
         int64_t strideH, int64_t strideW, int64_t padTop, int64_t padLeft,
         int64_t dilationH, int64_t dilationW, int64_t OH, int64_t OW,
         float *output, const nn_rt_epilogue *epilogue) {
  ConvArgs cv{N,         C,      H,       W,       input,  O,       KH,
              KW,        weight, strideH, strideW, padTop, padLeft, dilationH,
              dilationW, OH,     OW,      output,  {},     nullptr};
  cv.ep = epilogueOrNone(epilogue);
  return cv;
}

/// A buffer grown on demand and kept (see reserve, keptBuffer).
struct KeptBuffer {
  float *data;
  int64_t floats;
};

/// `buffer` grown to at least `floats` floats, 64-byte aligned; null (and
/// emptied) when out of memory.
static inline float *reserve(KeptBuffer &buffer, int64_t floats) {
  if (buffer.floats < floats) {
    free(buffer.data);
    size_t bytes = (size_t(floats) * sizeof(float) + 63) / 64 * 64;
    buffer.data = static_cast<float *>(aligned_alloc(64, bytes ? bytes : 64));
    buffer.floats = buffer.data ? floats : 0;
  }
  return buffer.data;
}

//===----------------------------------------------------------------------===//
// Kept per-thread buffers (Workspace.cpp) and the loops that presize them
// (ThreadPool.cpp)
//===----------------------------------------------------------------------===//
//
// A forward in steady state allocates nothing: a buffer of a packed
// operand's size would otherwise be an mmap plus a page fault per 4 KiB on
// every call. So each thread keeps one buffer of each kind below, grown to
// its largest use. A piece of a parallel loop may run on any of the loop's
// threads (work is claimed, not assigned), so a loop whose pieces take kept
// buffers names their sizes (LoopScratch) and parallelFor grows them on
// every thread that may run a piece before handing any out: after a
// kernel's first call no thread allocates, whichever thread runs which
// piece. The buffers are freed when their thread exits, when this copy of
// the kernels is unloaded, and by nn_rt_release_cached_memory (which runs
// when the last model context is destroyed).

/// The kinds of kept buffer; each thread has one of each.
enum class Kept {
  gemmPackA,     ///< GemmImpl.h's A block: any piece that runs a GEMM
  gemmPackB,     ///< GemmImpl.h's B block: any piece that runs a GEMM
  sharedPackedB, ///< a GEMM's whole B, packed by the caller for all threads
  convWeights,   ///< a convolution's weights, packed by the caller per call
  directScratch, ///< the direct convolution's band or depthwise plane
  laneMasks,     ///< the in-place depthwise convolution's, built by the caller
  attention,     ///< attention's block scratch and packed k and v
  count
};

/// The kept buffers a piece of a parallel loop takes: floats of each kind
/// (indexed by Kept), 0 for none.
struct LoopScratch {
  int64_t floats[int(Kept::count)];
};

/// `scratch` with kind `kind` grown to at least `floats`.
static inline LoopScratch withScratch(LoopScratch scratch, Kept kind,
                                      int64_t floats) {
  int64_t &have = scratch.floats[int(kind)];
  have = have < floats ? floats : have;
  return scratch;
}

/// The calling thread's kept buffer of `kind`, grown to at least `floats`
/// floats, 64-byte aligned; null when out of memory. (A thread without a
/// block, after this copy of the kernels was unloaded or when out of memory
/// for the block, uses a thread_local one that is never freed.)
float *keptBuffer(Kept kind, int64_t floats);
/// The floats the calling thread's kept buffer of `kind` holds now.
int64_t keptFloats(Kept kind);

/// One thread's kept buffers (and its forward's arena), freed when the
/// thread exits.
struct ThreadBuffers;
/// A new thread's buffers, made by the thread that starts it (so that
/// buffers can be presized before the thread first runs); null when out of
/// memory. The new thread adopts them (adoptThreadBuffers) as its first act;
/// false if it could not (out of memory), and they stay unadopted.
ThreadBuffers *createThreadBuffers();
bool adoptThreadBuffers(ThreadBuffers *buffers);
/// Frees `buffers` that no thread adopted.
void destroyThreadBuffers(ThreadBuffers *buffers);
/// Grows `buffers` to `scratch` (false when out of memory). Only while no
/// other thread uses them: the caller's own, or a pool worker's between
/// loops.
bool reserveScratch(ThreadBuffers *buffers, const LoopScratch &scratch);
/// Frees the kept buffers of `buffers` (under the same rule).
void releaseKept(ThreadBuffers *buffers);
/// Frees the pool workers' kept buffers, waiting for a running loop to end
/// (nothing once the pool is retired).
void releaseWorkerBuffers();
/// Takes the thread pool for good, when this copy of the kernels is
/// unloaded (later loops run serially), and stops and joins its workers, so
/// none runs this copy's code once it is unmapped; false (and nothing done)
/// when a loop is running, whose threads may be using their kept buffers.
bool retirePool();

/// nn_rt_parallel_for for a body whose pieces take `scratch` from
/// keptBuffer: the buffers of every thread that may run a piece are grown
/// first, so no piece allocates. A loop that runs serially (one thread, or
/// the pool busy) leaves the caller's to grow on first use.
void parallelFor(int64_t n, nn_rt_range_fn fn, void *ctx,
                 const LoopScratch &scratch);

/// The addends and activation of `ep` applied to v = C[m, n] (the scalar
/// reference every ISA's vector store must agree with).
static inline float applyEpilogue(const nn_rt_epilogue &ep, float v, int64_t m,
                                  int64_t n) {
  for (const nn_rt_addend &a : ep.addends)
    if (a.data)
      v += a.data[m * a.row_stride + n * a.col_stride];
  switch (ep.activation) {
  case NN_RT_ACT_RELU:
    return v < 0.f ? 0.f : v;
  case NN_RT_ACT_CLAMP:
    v = v < ep.min ? ep.min : v;
    return v > ep.max ? ep.max : v;
  case NN_RT_ACT_LEAKY_RELU:
    return v > 0.f ? v : v * ep.slope;
  default:
    return v;
  }
}

/// True when every addend of `ep` is contiguous or broadcast along a row,
/// so that a vector store can read a row's addends with vector loads.
static inline bool vectorEpilogue(const nn_rt_epilogue &ep) {
  for (const nn_rt_addend &a : ep.addends)
    if (a.data && a.col_stride != 0 && a.col_stride != 1)
      return false;
  return true;
}

/// `ep` with its addends moved to image `image`.
static inline nn_rt_epilogue epilogueOfImage(const nn_rt_epilogue &ep,
                                             int64_t image) {
  nn_rt_epilogue out = ep;
  for (nn_rt_addend &a : out.addends)
    if (a.data)
      a.data += image * a.image_stride;
  return out;
}

/// The GEMM of one image: Out[O, OH*OW] = W[O, C*KH*KW] x im2col (B unused).
static inline GemmArgs convGemmArgs(const ConvArgs &cv, int64_t image) {
  int64_t k = cv.C * cv.KH * cv.KW, p = cv.OH * cv.OW;
  return GemmArgs{cv.O,
                  p,
                  k,
                  cv.weight,
                  k,
                  1,
                  nullptr,
                  0,
                  0,
                  cv.output + image * cv.O * p,
                  p,
                  false,
                  epilogueOfImage(cv.ep, image),
                  nullptr};
}

#define NN_DECLARE_ISA(isa)                                                    \
  namespace isa {                                                              \
  int64_t mr();                                                                \
  int64_t nr();                                                                \
  void sgemm(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0,            \
             int64_t n1);                                                      \
  /* Output channels [o0, o1) (o0 a multiple of mr()) at pixels [p0, p1). */   \
  void conv2d(const ConvArgs &cv, int64_t image, int64_t p0, int64_t p1,       \
              int64_t o0, int64_t o1);                                         \
  int64_t packedWeightSize(const ConvArgs &cv);                                \
  void packWeights(const ConvArgs &cv, float *dst);                            \
  /* B whole, packed once and shared by the threads of one GEMM. */            \
  int64_t packedBSize(int64_t K, int64_t N);                                   \
  void packBPanels(const GemmArgs &g, int64_t panel0, int64_t panel1,          \
                   float *dst);                                                \
  void sgemmPackedB(const GemmArgs &g, int64_t m0, int64_t m1,                 \
                    const float *packedB);                                     \
  /* B whole, packed once for many calls (nn_rt_sgemm_pack_b). */              \
  void packAllB(const GemmArgs &g, float *dst);                                \
  /* Whether sgemm reads A in place (unpacked): then no thread split */        \
  /* along N repeats any packing. */                                           \
  bool readsAInPlace(const GemmArgs &g);                                       \
  /* The floats sgemm and conv2d take of Kept::gemmPackA and gemmPackB. */     \
  int64_t packBufferFloatsA();                                                 \
  int64_t packBufferFloatsB();                                                 \
  }
NN_DECLARE_ISA(avx2)
NN_DECLARE_ISA(avx512)
#undef NN_DECLARE_ISA

//===----------------------------------------------------------------------===//
// Batched kernels (Batched.cpp, Attention.cpp)
//===----------------------------------------------------------------------===//

/// Rows [m0, m1) and columns [n0, n1) of `g` on the calling thread, with the
/// widest ISA this CPU has (Dispatch.cpp).
void gemmOnThisThread(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0,
                      int64_t n1);
/// The register tile of that ISA (1 x 1 for the scalar loops).
void registerTile(int64_t &mr, int64_t &nr);
/// Floats of a [K, N] B packed for that ISA (GemmArgs::packedB), or 0 when
/// it reads B through the strides only (the scalar loops).
int64_t gemmPackedBFloats(int64_t K, int64_t N);
/// Packs all of `g`'s B into `dst` (gemmPackedBFloats(g.K, g.N) floats) for
/// gemmOnThisThread with packedB = dst: a B that several GEMMs on one thread
/// read (attention's keys and values, once per query block) is packed once.
void gemmPackB(const GemmArgs &g, float *dst);
/// The kept buffers a piece that runs GEMMs (gemmOnThisThread, or the ISA's
/// sgemm, sgemmPackedB or conv2d) takes: the packing blocks of that ISA.
LoopScratch gemmScratch();
/// Whether `macs` multiply-adds are worth splitting over the thread pool.
bool worthParallel(double macs);
/// Whether nn_rt_sgemm(_packed_b) splits `g` over `threads` threads by
/// column panels with A read in place: the small-M split, worth it from far
/// fewer multiply-adds than worthParallel asks since it repeats no work.
bool splitsSmallGemm(const GemmArgs &g, int64_t threads);
/// Whether the AVX2 + FMA row functions below may run.
bool hasAvx2Fma();

/// The number of batch indices of `batch` (NN_RT_MAX_BATCH_DIMS sizes).
static inline int64_t batchCount(const int64_t *batch) {
  int64_t n = 1;
  for (int d = 0; d < NN_RT_MAX_BATCH_DIMS; ++d)
    n *= batch[d];
  return n;
}

/// The offset of flattened (row-major) batch index `flat` in a view of
/// batch strides `strides`.
static inline int64_t batchOffset(const int64_t *batch, const int64_t *strides,
                                  int64_t flat) {
  int64_t offset = 0;
  for (int d = NN_RT_MAX_BATCH_DIMS - 1; d >= 0; --d) {
    offset += (flat % batch[d]) * strides[d];
    flat /= batch[d];
  }
  return offset;
}

/// The row pieces of attention's softmax, vectorized (AttentionAvx2.cpp).
namespace avx2 {
/// y[i] = exp(x[i]) for i < n (x and y may be the same). At most 1 ulp from
/// the correctly rounded result over the whole float range, NaN, +-inf and
/// denormal results included (checked in KernelsTest).
void expRow(const float *x, float *y, int64_t n);
/// x[i] = i < valid ? x[i] * scale (+ mask[i]) : -inf for i < n, with a
/// contiguous mask or none (null); returns the maximum of the new x.
float scaleMaskMaxRow(float *x, int64_t n, int64_t valid, float scale,
                      const float *mask);
/// x[i] = exp(x[i] - shift) for i < n; returns the sum of the new x.
float expShiftSumRow(float *x, int64_t n, float shift);
/// x[i] *= factor for i < n.
void scaleRow(float *x, int64_t n, float factor);
} // namespace avx2

/// The widest instruction set with kernels that this CPU and OS support
/// (Dispatch.cpp, from CPUID and XGETBV at the first call).
enum class IsaLevel { scalar, avx2, avx512 };
IsaLevel isaLevel();
/// Whether this CPU executes AVX-512 on 256-bit units (AMD's Zen 4), so
/// that its AVX-512 peak is no higher than its AVX2 one.
bool avx512OnHalfWidthUnits();

/// The implicit-GEMM convolution (im2col gathered while packing) over the
/// thread pool, weights packed here (Dispatch.cpp).
void runGemmConv(const ConvArgs &cv);
/// The calling thread's buffer for a convolution's weights packed by the
/// call itself (weights that are an input, not state packed at bind time):
/// keptBuffer(Kept::convWeights, floats), which every thread of the call
/// reads while the caller waits. Null when out of memory (Dispatch.cpp).
float *perCallConvWeights(int64_t floats);

// --- Direct convolution (DirectConv.cpp, DirectConvImpl.h) -----------------
//
// The input of a band of output rows is copied, zero-padded, into a
// scratch where every (channel, stride phase) is a plane of rows of Wq
// floats: phase (py, px) row r, column x holds the padded input at
// (r * strideH + py, x * strideW + px). Output pixel (oy, ox) of tap
// (ky, kx) then reads phase ((ky * dilH) % sH, (kx * dilW) % sW) at row
// oy + (ky * dilH) / sH, column ox + (kx * dilW) / sW: with the output
// flattened as q = oy * Wq + ox, every tap is a constant offset from q, so
// the kernel runs over vectors of output pixels with neither a gather nor a
// bounds check. Vectors start at columns 0, VL, 2 VL, ... of each output
// row (a row's last one may be partial), so the Wq - OW columns past a row
// are never computed; or, where the tiles can store a vector's lanes
// spread over two rows (AVX-512's compress) and that computes fewer
// vectors, they run on over the flattened rows (directJoinRows).

/// The most taps (KH * KW) of a direct convolution (7 x 7 fits).
constexpr int64_t kDirectMaxTaps = 64;
/// The widest run of flattened pixels one kernel tile reads past q (the
/// planes' zeroed slack).
constexpr int64_t kDirectMaxTileWidth = 64;
/// The largest stride of a direct convolution (each of stride^2 phases is a
/// plane of the scratch).
constexpr int64_t kDirectMaxStride = 4;
/// The floats a band fill may write past the channels' planes (a vector
/// of the widest ISA, less one): the scratch holds them.
constexpr int64_t kFillSpill = 16;

/// The scratch layout of a band of `planeRows` phase rows (see above).
struct DirectGeometry {
  int64_t Wq;         // row pitch of a phase plane: OW + the widest tap reach
  int64_t maxRy;      // phase rows a band reads below its last output row
  int64_t bandRows;   // output rows per band
  int64_t planeRows;  // bandRows + maxRy
  int64_t planeSize;  // floats per phase plane, slack included
  int64_t chanStride; // floats per channel: strideH * strideW planes
  int64_t taps;       // KH * KW
  /// Tap (ky, kx) at ky * KW + kx: its plane and row/column offset from q.
  int64_t offsets[kDirectMaxTaps];
  /// Which phases (py * strideW + px) some tap reads.
  bool phaseUsed[kDirectMaxStride * kDirectMaxStride];
};

/// Vectors of VL output pixels the direct kernel computes for `rows` output
/// rows of OW pixels in scratch rows of pitch Wq: ceil(OW / VL) a row, or,
/// `joined` over the flattened rows, ceil(((rows - 1) * Wq + OW) / VL).
inline int64_t directVectors(int64_t rows, int64_t OW, int64_t Wq, int64_t VL,
                             bool joined) {
  return joined ? ((rows - 1) * Wq + OW + VL - 1) / VL
                : rows * ((OW + VL - 1) / VL);
}
/// Whether tiles that can join rows (`canJoin`) do, for a band of `rows`:
/// where that computes fewer vectors (rows of 56 in a pitch of 58 with 16
/// lanes: 203 vectors for 56 rows instead of 224; rows of 7 in a pitch of
/// 9: 4 for 7 rows instead of 7).
inline bool directJoinRows(int64_t rows, int64_t OW, int64_t Wq, int64_t VL,
                           bool canJoin) {
  return canJoin && directVectors(rows, OW, Wq, VL, true) <
                        directVectors(rows, OW, Wq, VL, false);
}

/// Input a band kernel pulls towards L2 while it computes, so that the next
/// band's copy into the scratch does not wait on L3 or memory: `channels`
/// runs of `floats` floats, `stride` floats apart. No base: nothing.
struct DirectPrefetch {
  const float *base;
  int64_t channels, stride, floats;
};

/// True when this CPU has vector tiles and the direct kernel's scratch
/// layout holds `cv`'s window (runDirectConv can compute it).
bool vectorWindow(const ConvArgs &cv);
/// True when the dispatcher has the direct kernel compute `cv` on this CPU
/// (the implicit GEMM takes the rest: the plain 1x1 case that needs no
/// gather, and rows much narrower than a vector).
bool directConvApplies(const ConvArgs &cv);
/// The instruction set of the direct kernel's tiles: isaLevel(), except
/// AVX2 where AVX-512 runs on half-width units (avx512OnHalfWidthUnits).
/// Both sum every output over channels, then taps, in the same order.
IsaLevel directConvIsa();
/// Tests: the direct kernel's tiles in `isa` (never above isaLevel()) until
/// clearDirectConvIsa(). Weights packed under one must be run under it.
void setDirectConvIsa(IsaLevel isa);
void clearDirectConvIsa();
/// The direct kernel's tile shapes (DirectConvImpl.h): vectors of a row's
/// output pixels by broadcast output channels, or vectors of output
/// channels by broadcast pixels, many or (narrowChannels, for small images
/// the wide tiles would leave partly empty) fewer at a time.
enum class DirectTiles { pixels, channels, narrowChannels };
/// The tiles the dispatcher runs `cv` with on this CPU.
DirectTiles directConvTiles(const ConvArgs &cv);
/// The convolution `cv` by the direct kernel's `tiles` over the thread
/// pool. `packedWeight` is packDirectConvWeights' layout for
/// directConvBlock(tiles) output channels per block, or null to pack here
/// (a pre-packed weight can be passed by a caller that packs once at bind
/// time).
void runDirectConv(const ConvArgs &cv, const float *packedWeight,
                   DirectTiles tiles);
/// The same with the tiles the dispatcher chooses.
void runDirectConv(const ConvArgs &cv, const float *packedWeight);
/// Output channels per block of the direct kernel's `tiles` on this CPU.
int64_t directConvBlock(DirectTiles tiles);
/// Output pixels per tile of the direct kernel on this CPU.
int64_t directConvTileWidth();
/// Output pixels per vector of the direct kernel on this CPU.
int64_t directConvVectorWidth();
/// Whether the direct kernel's pixel tiles on this CPU join rows where that
/// computes fewer vectors (directJoinRows).
bool directConvJoinsRows();
/// Floats of packDirectConvWeights' result.
int64_t directPackedWeightSize(int64_t O, int64_t C, int64_t taps,
                               int64_t block);
/// OIHW `weight` -> dst[O / block][C][KH * KW][block], the channels past O
/// zero: the order the direct kernel broadcasts them in.
void packDirectConvWeights(const float *weight, int64_t O, int64_t C,
                           int64_t taps, int64_t block, float *dst);

#define NN_DECLARE_DIRECT_ISA(isa)                                             \
  namespace isa {                                                              \
  int64_t directOcBlock();                                                     \
  bool directJoinsRows();                                                      \
  int64_t directChannelBlock();                                                \
  int64_t directChannelTilePixels();                                           \
  int64_t directNarrowChannelTilePixels();                                     \
  void directConvBandChannels(const ConvArgs &cv, const DirectGeometry &g,     \
                              const float *packedWeight, const float *scratch, \
                              int64_t image, int64_t oy0, int64_t rows,        \
                              int64_t oBegin, int64_t oEnd,                    \
                              const DirectPrefetch &next);                     \
  void directConvBandNarrowChannels(const ConvArgs &cv,                        \
                                    const DirectGeometry &g,                   \
                                    const float *packedWeight,                 \
                                    const float *scratch, int64_t image,       \
                                    int64_t oy0, int64_t rows, int64_t oBegin, \
                                    int64_t oEnd, const DirectPrefetch &next); \
  int64_t directTileWidth();                                                   \
  int64_t directVectorWidth();                                                 \
  void directConvBand(const ConvArgs &cv, const DirectGeometry &g,             \
                      const float *packedWeight, const float *scratch,         \
                      int64_t image, int64_t oy0, int64_t rows,                \
                      int64_t oBegin, int64_t oEnd,                            \
                      const DirectPrefetch &next);                             \
  /* Writes the scratch of output rows [oy0, oy0 + g.bandRows) for             \
     channels [c0, c0 + channels) of `image` (NCHW, all of cv.C channels)      \
     into dst: phase (py, px) of channel c, row j, column x = the input at     \
     ((oy0 + j) * sH + py - padTop, x * sW + px - padLeft), zero outside,      \
     each plane's slack zero; up to kFillSpill floats past the last plane      \
     are written too. */                                                       \
  void fillBand(const ConvArgs &cv, const DirectGeometry &g,                   \
                const float *image, int64_t c0, int64_t channels, int64_t oy0, \
                float *dst);                                                   \
  void depthwisePlane(const ConvArgs &cv, const DirectGeometry &g,             \
                      float *scratch, int64_t image, int64_t channel);         \
  /* The plane of `channel` of `image` of a depthwise convolution whose        \
     output has its input's size at stride 1 (DirectConv.cpp's                 \
     sameSizeDepthwise), read from the input itself: bit l of                  \
     masks[v * taps + t] is set where tap t of pixel q = v * VL + l of the     \
     flattened plane lies inside it (the same masks for every plane), for      \
     whole groups of depthwiseSameGroup() vectors. */                          \
  void depthwiseSamePlane(const ConvArgs &cv, const uint16_t *masks,           \
                          int64_t image, int64_t channel);                     \
  int64_t depthwiseSameGroup();                                                \
  }
NN_DECLARE_DIRECT_ISA(avx2)
NN_DECLARE_DIRECT_ISA(avx512)
namespace avx512 {
/// The plane of `channel` of `image` of a 3x3 or 5x5 depthwise convolution
/// at stride 2 padded by K / 2 on the top and left, read from the input
/// itself (DirectConv.cpp's stride2Depthwise).
void depthwiseStride2Plane(const ConvArgs &cv, int64_t image, int64_t channel);
} // namespace avx512
#undef NN_DECLARE_DIRECT_ISA

} // namespace nn_rt

#endif // NN_RUNTIME_KERNELS_INTERNAL_H
