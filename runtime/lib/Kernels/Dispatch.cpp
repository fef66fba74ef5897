//===- Dispatch.cpp - The kernels' C ABI: ISA choice and threading --------===//
//
// Picks the widest instruction set this CPU and OS support (CPUID + XGETBV,
// read directly so that no libgcc helper is needed) at the first call, lowered
// to the cap NN_MAX_ISA names if it is set, splits the work over
// nn_rt_parallel_for, and falls back to plain loops on CPUs without AVX2 +
// FMA.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <atomic>
#include <cpuid.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

// nn-lower-kernel-ops builds nn_rt_epilogue as the LLVM struct
// {(ptr, i64 x 3) x 2, i32, f32 x 3} (KernelABI.def; KernelABITest checks
// every field).
static_assert(sizeof(nn_rt_addend) == 32 && NN_RT_MAX_ADDENDS == 2 &&
                  offsetof(nn_rt_epilogue, activation) == 64 &&
                  offsetof(nn_rt_epilogue, slope) == 76 &&
                  sizeof(nn_rt_epilogue) == 80,
              "the epilogue's layout is part of the ABI generated code uses");

namespace {

/// Ordered: a cap keeps the smaller of two levels.
enum class Isa { unknown, scalar, avx2, avx512 };
std::atomic<Isa> chosen{Isa::unknown};

#ifdef NN_KERNELS_FORCE_AVX512
// The test-only build whose AVX-512 kernels are SIMDe's emulation on AVX2 +
// FMA (runtime/CMakeLists.txt, Avx512Intrinsics.h): it asks nothing of the
// CPU beyond what its AVX2 files do, and always takes the AVX-512 path.
Isa detect() { return Isa::avx512; }
#else
uint64_t readXcr0() {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}

Isa detect() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return Isa::scalar;
  bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28);
  if (!osxsave || !avx || !fma)
    return Isa::scalar;
  uint64_t xcr0 = readXcr0();
  if ((xcr0 & 0x6) != 0x6) // SSE and AVX state
    return Isa::scalar;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return Isa::scalar;
  bool avx2 = b & (1u << 5), avx512f = b & (1u << 16);
  if (avx512f && (xcr0 & 0xe6) == 0xe6) // + opmask, ZMM_Hi256, Hi16_ZMM
    return Isa::avx512;
  return avx2 ? Isa::avx2 : Isa::scalar;
}
#endif

#ifdef NN_KERNELS_FORCE_AVX512
bool halfWidthAvx512() { return false; } // the emulation tests the AVX-512 path
#else
/// AMD family 0x19 with AVX-512 is Zen 4 (Zen 3, the same family, has
/// none), whose AVX-512 instructions run on its 256-bit units.
bool halfWidthAvx512() {
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d))
    return false;
  bool amd = b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163;
  if (!amd || !__get_cpuid(1, &a, &b, &c, &d))
    return false;
  unsigned family = (a >> 8) & 0xf;
  if (family == 0xf)
    family += (a >> 20) & 0xff;
  return family == 0x19;
}
#endif

/// The names NN_MAX_ISA accepts (any case), by level.
constexpr struct {
  const char *name;
  Isa isa;
} kIsaNames[] = {
    {"scalar", Isa::scalar}, {"avx2", Isa::avx2}, {"avx512", Isa::avx512}};

const char *isaName(Isa isa) {
  for (const auto &n : kIsaNames)
    if (n.isa == isa)
      return n.name;
  return "unknown";
}

/// Appends at most `most` bytes of the string `s` to buf[0, len), never
/// more than `cap` in all.
void append(char *buf, size_t &len, size_t cap, const char *s,
            size_t most = SIZE_MAX) {
  size_t n = strnlen(s, most);
  if (n > cap - len)
    n = cap - len;
  memcpy(buf + len, s, n);
  len += n;
}

/// One line to stderr for a cap that names no ISA: it is not applied, and
/// saying so beats running a different ISA from the one asked for without a
/// word. write(2), not stdio: this archive links no more than libc needs.
void reportUnknownCap(const char *value, Isa used) {
  char line[256];
  size_t len = 0, cap = sizeof(line) - 1; // 1 left for the newline
  append(line, len, cap, "nn: NN_MAX_ISA=");
  append(line, len, cap, value, 64); // a long value cut short, not the rest
  append(line, len, cap, " is not one of");
  for (const auto &n : kIsaNames) {
    append(line, len, cap, " ");
    append(line, len, cap, n.name);
  }
  append(line, len, cap, "; ignored, the kernels use ");
  append(line, len, cap, isaName(used));
  line[len++] = '\n';
  ssize_t ignored = write(STDERR_FILENO, line, len);
  (void)ignored;
}

/// The level NN_MAX_ISA names, Isa::unknown when it names none, or
/// Isa::avx512 (no cap) when it is unset or empty.
Isa capFromEnvironment(const char *value) {
  if (!value || !*value)
    return Isa::avx512;
  for (const auto &n : kIsaNames)
    if (strcasecmp(value, n.name) == 0)
      return n.isa;
  return Isa::unknown;
}

/// The ISA of every kernel call in this process: the detected one, lowered
/// (never raised) to NN_MAX_ISA. Read once, so that weights packed for one
/// ISA's layout are never read by another's kernels.
Isa isa() {
  Isa i = chosen.load(std::memory_order_relaxed);
  if (i != Isa::unknown)
    return i;
  const char *value = getenv("NN_MAX_ISA");
  Isa cap = capFromEnvironment(value);
  i = detect();
  if (cap != Isa::unknown && cap < i)
    i = cap;
  Isa expected = Isa::unknown;
  if (!chosen.compare_exchange_strong(expected, i, std::memory_order_relaxed))
    return expected; // another thread chose first (and reported)
  if (cap == Isa::unknown)
    reportUnknownCap(value, i);
  return i;
}

/// The reference loops, for CPUs without AVX2 + FMA.
void scalarGemm(const nn_rt::GemmArgs &g, int64_t m0, int64_t m1, int64_t n0,
                int64_t n1) {
  for (int64_t m = m0; m < m1; ++m)
    for (int64_t n = n0; n < n1; ++n) {
      float acc = 0.f;
      for (int64_t k = 0; k < g.K; ++k)
        acc += g.A[m * g.rsA + k * g.csA] * *nn_rt::bElement(g, k, n);
      float *c = g.C + m * g.rsC + n;
      if (g.accumulate)
        acc += *c;
      *c = nn_rt::applyEpilogue(g.ep, acc, m, n);
    }
}

void scalarConv(const nn_rt::ConvArgs &cv, int64_t image, int64_t p0,
                int64_t p1, int64_t o0, int64_t o1) {
  const float *in = cv.input + image * cv.C * cv.H * cv.W;
  float *out = cv.output + image * cv.O * cv.OH * cv.OW;
  nn_rt_epilogue ep = nn_rt::epilogueOfImage(cv.ep, image);
  for (int64_t o = o0; o < o1; ++o)
    for (int64_t p = p0; p < p1; ++p) {
      int64_t oy = p / cv.OW, ox = p % cv.OW;
      float acc = 0.f;
      for (int64_t c = 0; c < cv.C; ++c)
        for (int64_t ky = 0; ky < cv.KH; ++ky)
          for (int64_t kx = 0; kx < cv.KW; ++kx) {
            int64_t iy = oy * cv.strideH - cv.padTop + ky * cv.dilationH;
            int64_t ix = ox * cv.strideW - cv.padLeft + kx * cv.dilationW;
            if (iy < 0 || iy >= cv.H || ix < 0 || ix >= cv.W)
              continue;
            acc += in[(c * cv.H + iy) * cv.W + ix] *
                   cv.weight[((o * cv.C + c) * cv.KH + ky) * cv.KW + kx];
          }
      out[o * cv.OH * cv.OW + p] = nn_rt::applyEpilogue(ep, acc, o, p);
    }
}

void gemmRange(const nn_rt::GemmArgs &g, int64_t m0, int64_t m1, int64_t n0,
               int64_t n1) {
  switch (isa()) {
  case Isa::avx512:
    return nn_rt::avx512::sgemm(g, m0, m1, n0, n1);
  case Isa::avx2:
    return nn_rt::avx2::sgemm(g, m0, m1, n0, n1);
  default:
    return scalarGemm(g, m0, m1, n0, n1);
  }
}

/// Output channels [o0, o1) of `image` at pixels [p0, p1).
void convRange(const nn_rt::ConvArgs &cv, int64_t image, int64_t p0, int64_t p1,
               int64_t o0, int64_t o1) {
  switch (isa()) {
  case Isa::avx512:
    return nn_rt::avx512::conv2d(cv, image, p0, p1, o0, o1);
  case Isa::avx2:
    return nn_rt::avx2::conv2d(cv, image, p0, p1, o0, o1);
  default:
    return scalarConv(cv, image, p0, p1, o0, o1);
  }
}

/// The register tile of the chosen ISA (the unit of a thread's share).
void tile(int64_t &mr, int64_t &nr) {
  switch (isa()) {
  case Isa::avx512:
    mr = nn_rt::avx512::mr(), nr = nn_rt::avx512::nr();
    return;
  case Isa::avx2:
    mr = nn_rt::avx2::mr(), nr = nn_rt::avx2::nr();
    return;
  default:
    mr = nr = 1;
  }
}

/// Below this many multiply-adds (about 20 us on one AVX-512 core) a GEMM
/// or convolution runs on the calling thread alone. The workers spin
/// between the kernels of a forward (ThreadPool.cpp), so handing them a
/// loop costs under a microsecond; a worker that must be woken, or
/// scheduled on a loaded machine, costs far more, which this bound keeps
/// to layers where it is a small part. It was 2^25 when workers slept
/// between loops (W1's 13M-MAC layers then lost 5x on 2 threads at 2^18);
/// with the spinning pool, measured on Zen 4 (one run, medians, 1 -> 2
/// threads): W1 0.357 -> 0.207 ms, MobileNetV2 at batch 1, whose layers are
/// 1M-20M MACs, 12.0 -> 6.9 ms (at 2^25 it did not scale at all).
constexpr double kMinParallelWork = 1 << 21;

/// Below this many multiply-adds a GEMM that splitsSmallGemm could split
/// runs on the calling thread alone. That split repeats no work, so only
/// the loop's hand-off has to pay: 0.5 us (best) to 0.7 us (median) to a
/// spinning worker on Zen 3. Measured there, best of 4000, M = 64, N = 256,
/// B packed: K = 32 (0.5M MACs) 17.6 -> 13.2 us on 2 threads, K = 128 (2M)
/// 49.3 -> 27.0 us, K = 256 (4M) 90.7 -> 48.8 us. From 1M MACs (about 23 us
/// on one thread) the hand-off is a few percent of each thread's half. A
/// worker that has to be woken, or scheduled on a loaded machine, costs
/// far more; that is the thread pool's to reduce, not a threshold's.
constexpr double kMinSmallGemmParallelWork = 1 << 20;

/// Whether A is read in place (unpacked) by the chosen ISA's sgemm.
bool readsAInPlace(const nn_rt::GemmArgs &g) {
  switch (isa()) {
  case Isa::avx512:
    return nn_rt::avx512::readsAInPlace(g);
  case Isa::avx2:
    return nn_rt::avx2::readsAInPlace(g);
  default:
    return false;
  }
}

struct GemmSplit {
  const nn_rt::GemmArgs *g;
  int64_t unit;
  bool alongN;
};

void gemmChunk(void *ctx, int64_t begin, int64_t end) {
  auto *s = static_cast<GemmSplit *>(ctx);
  const nn_rt::GemmArgs &g = *s->g;
  if (s->alongN) {
    int64_t n1 = end * s->unit < g.N ? end * s->unit : g.N;
    gemmRange(g, 0, g.M, begin * s->unit, n1);
  } else {
    int64_t m1 = end * s->unit < g.M ? end * s->unit : g.M;
    gemmRange(g, begin * s->unit, m1, 0, g.N);
  }
}

/// A convolution's work in chunks of `pixels` output pixels (a multiple of
/// the register tile's columns, or all of an image's) by `channels` output
/// channels (a multiple of its rows, or all of them), indexed image-major.
struct ConvSplit {
  const nn_rt::ConvArgs *cv;
  int64_t pixels, channels;

  int64_t pixelBlocks() const {
    return (cv->OH * cv->OW + pixels - 1) / pixels;
  }
  int64_t channelBlocks() const { return (cv->O + channels - 1) / channels; }
  int64_t chunks() const { return cv->N * pixelBlocks() * channelBlocks(); }
};

void convChunk(void *ctx, int64_t begin, int64_t end) {
  auto *s = static_cast<ConvSplit *>(ctx);
  const nn_rt::ConvArgs &cv = *s->cv;
  const int64_t pixels = cv.OH * cv.OW, pixelBlocks = s->pixelBlocks(),
                channelBlocks = s->channelBlocks();
  auto below = [](int64_t a, int64_t b) { return a < b ? a : b; };
  for (int64_t c = begin; c < end; ++c) {
    int64_t image = c / (pixelBlocks * channelBlocks),
            p0 = c / channelBlocks % pixelBlocks * s->pixels,
            o0 = c % channelBlocks * s->channels;
    convRange(cv, image, p0, below(p0 + s->pixels, pixels), o0,
              below(o0 + s->channels, cv.O));
  }
}

/// The largest of `parts` shares of `size` when shares are whole multiples
/// of `unit` (all of `size` at most).
int64_t largestShare(int64_t size, int64_t parts, int64_t unit) {
  int64_t share = (size + parts - 1) / parts;
  share = (share + unit - 1) / unit * unit;
  return share < size ? share : size;
}

/// How much longer than an even share that largest share is.
double shareExcess(int64_t size, int64_t parts, int64_t unit) {
  return double(largestShare(size, parts, unit)) * double(parts) / double(size);
}

/// The convolution's weights in the chosen ISA's packed layout, in the
/// calling thread's kept buffer (perCallConvWeights), or null for the scalar
/// path or when out of memory (the kernels then pack per block).
float *packConvWeights(const nn_rt::ConvArgs &cv) {
  int64_t floats;
  switch (isa()) {
  case Isa::avx512:
    floats = nn_rt::avx512::packedWeightSize(cv);
    break;
  case Isa::avx2:
    floats = nn_rt::avx2::packedWeightSize(cv);
    break;
  default:
    return nullptr;
  }
  float *dst = nn_rt::perCallConvWeights(floats);
  if (!dst)
    return nullptr;
  if (isa() == Isa::avx512)
    nn_rt::avx512::packWeights(cv, dst);
  else
    nn_rt::avx2::packWeights(cv, dst);
  return dst;
}

/// Runs the convolution `cv` (weights packed or not) over the thread pool.
void runConv(const nn_rt::ConvArgs &cv) {
  const int64_t N = cv.N, O = cv.O, C = cv.C, KH = cv.KH, KW = cv.KW,
                OH = cv.OH, OW = cv.OW;
  int64_t threads = nn_rt_get_num_threads();
  int64_t pixels = OH * OW;
  ConvSplit split{&cv, pixels, O}; // whole images
  if (threads <= 1 || double(N) * O * pixels * C * KH * KW < kMinParallelWork)
    return convChunk(&split, 0, split.chunks());
  if (N % threads != 0 && N < 4 * threads) {
    // Few images: also split each image, in whole register tiles, along
    // its pixels (each thread packs only its own columns of the im2col
    // matrix) unless that leaves the threads clearly less even than its
    // output channels do (every thread then packs all of them, a 1/M part
    // of its work): ResNet's 7x7 layers are 2 column tiles of 32 and 17
    // pixels on 2 threads, 512 channels split 264 / 248.
    int64_t mr, nr;
    tile(mr, nr);
    int64_t perImage = (threads + N - 1) / N;
    if (shareExcess(O, perImage, mr) * 1.1 < shareExcess(pixels, perImage, nr))
      split.channels = largestShare(O, perImage, mr);
    else
      split.pixels = largestShare(pixels, perImage, nr);
  }
  nn_rt::parallelFor(split.chunks(), convChunk, &split, nn_rt::gemmScratch());
}

/// Larger packed Bs fall back to splitting N (each thread packs its columns).
constexpr int64_t kMaxSharedPackedB = int64_t(1) << 24; // floats, 64 MiB

float *sharedPackedBuffer(int64_t floats) {
  if (floats > kMaxSharedPackedB)
    return nullptr;
  // The calling thread's: the workers only read it while the call that
  // filled it waits, so calls from different threads never share one.
  return nn_rt::keptBuffer(nn_rt::Kept::sharedPackedB, floats);
}

/// Each thread needs at least this many row tiles of C for the row split
/// with a shared B: every thread reads all of the packed B, so it must reuse
/// each B element for enough rows, and the split is in whole tiles (171
/// tiles of 1024 rows split 86 / 85).
constexpr int64_t kMinRowTilesPerThread = 8;

struct SharedBSplit {
  const nn_rt::GemmArgs *g;
  float *packInto;      // where packBChunk writes B (null: already packed)
  const float *packedB; // what rowChunk reads
  int64_t mr;
};

void packBChunk(void *ctx, int64_t begin, int64_t end) {
  auto *s = static_cast<SharedBSplit *>(ctx);
  if (isa() == Isa::avx512)
    nn_rt::avx512::packBPanels(*s->g, begin, end, s->packInto);
  else
    nn_rt::avx2::packBPanels(*s->g, begin, end, s->packInto);
}

void rowChunk(void *ctx, int64_t begin, int64_t end) {
  auto *s = static_cast<SharedBSplit *>(ctx);
  int64_t m0 = begin * s->mr,
          m1 = end * s->mr < s->g->M ? end * s->mr : s->g->M;
  if (isa() == Isa::avx512)
    nn_rt::avx512::sgemmPackedB(*s->g, m0, m1, s->packedB);
  else
    nn_rt::avx2::sgemmPackedB(*s->g, m0, m1, s->packedB);
}

/// The threaded GEMM for tall C: B packed once, its column panels split over
/// the threads, then C's rows split over them, each thread packing only its
/// own rows of A. Splitting N instead has every thread pack all of A (10% of
/// each thread's time at 1024^3 on 2 threads); splitting M alone, all of B.
/// False when this does not apply (no vector ISA, too few rows, B too big).
bool sgemmSharedB(const nn_rt::GemmArgs &g, int64_t threads) {
  if (isa() != Isa::avx2 && isa() != Isa::avx512)
    return false;
  int64_t mr, nr;
  tile(mr, nr);
  int64_t rowTiles = (g.M + mr - 1) / mr;
  if (rowTiles < kMinRowTilesPerThread * threads)
    return false;
  if (g.packedB) { // packed once, before this call
    SharedBSplit split{&g, nullptr, g.packedB, mr};
    nn_rt::parallelFor(rowTiles, rowChunk, &split, nn_rt::gemmScratch());
    return true;
  }
  int64_t floats = isa() == Isa::avx512 ? nn_rt::avx512::packedBSize(g.K, g.N)
                                        : nn_rt::avx2::packedBSize(g.K, g.N);
  float *packed = sharedPackedBuffer(floats);
  if (!packed)
    return false;
  SharedBSplit split{&g, packed, packed, mr};
  nn_rt_parallel_for((g.N + nr - 1) / nr, packBChunk, &split);
  nn_rt::parallelFor(rowTiles, rowChunk, &split, nn_rt::gemmScratch());
  return true;
}

/// Runs the GEMM `g` (B packed or not) over the thread pool.
void runGemm(const nn_rt::GemmArgs &g) {
  const int64_t M = g.M, N = g.N, K = g.K;
  int64_t threads = nn_rt_get_num_threads();
  int64_t mr, nr;
  tile(mr, nr);
  if (nn_rt::splitsSmallGemm(g, threads)) {
    GemmSplit split{&g, nr, true};
    nn_rt::parallelFor((N + nr - 1) / nr, gemmChunk, &split,
                       nn_rt::gemmScratch());
    return;
  }
  if (threads <= 1 || double(M) * N * K < kMinParallelWork) {
    gemmRange(g, 0, M, 0, N);
    return;
  }
  if (g.K > 0 && sgemmSharedB(g, threads))
    return;
  // Split the longer side of C in whole register tiles.
  GemmSplit split{&g, N >= M ? nr : mr, N >= M};
  int64_t units = ((split.alongN ? N : M) + split.unit - 1) / split.unit;
  nn_rt::parallelFor(units, gemmChunk, &split, nn_rt::gemmScratch());
}

/// Floats of B[K, N] packed for the chosen ISA; without one, the packed
/// form is a row-major copy the scalar loops read.
int64_t packedBFloats(int64_t K, int64_t N) {
  switch (isa()) {
  case Isa::avx512:
    return nn_rt::avx512::packedBSize(K, N);
  case Isa::avx2:
    return nn_rt::avx2::packedBSize(K, N);
  default:
    return K * N;
  }
}

/// The ConvArgs of one image of a convolution's geometry, without data:
/// what decides the weights' packed layout.
nn_rt::ConvArgs convShape(int64_t C, int64_t H, int64_t W, int64_t O,
                          int64_t KH, int64_t KW, const float *weight,
                          int64_t strideH, int64_t strideW, int64_t padTop,
                          int64_t padLeft, int64_t dilationH, int64_t dilationW,
                          int64_t OH, int64_t OW) {
  return nn_rt::convArgs(1, C, H, W, nullptr, O, KH, KW, weight, strideH,
                         strideW, padTop, padLeft, dilationH, dilationW, OH, OW,
                         nullptr, nullptr);
}

} // namespace

namespace nn_rt {

bool avx512OnHalfWidthUnits() {
  static std::atomic<int> half{-1}; // -1: not asked yet
  int known = half.load(std::memory_order_relaxed);
  if (known < 0) {
    known = halfWidthAvx512();
    half.store(known, std::memory_order_relaxed);
  }
  return known;
}

IsaLevel isaLevel() {
  switch (isa()) {
  case Isa::avx512:
    return IsaLevel::avx512;
  case Isa::avx2:
    return IsaLevel::avx2;
  default:
    return IsaLevel::scalar;
  }
}

void runGemmConv(const ConvArgs &args) {
  ConvArgs cv = args;
  // The weights are every image's A: packed once here, read by all threads.
  cv.packedWeight = packConvWeights(cv);
  runConv(cv);
}

float *perCallConvWeights(int64_t floats) {
  return keptBuffer(Kept::convWeights, floats);
}

LoopScratch gemmScratch() {
  LoopScratch scratch = {};
  switch (isa()) {
  case Isa::avx512:
    scratch.floats[int(Kept::gemmPackA)] = avx512::packBufferFloatsA();
    scratch.floats[int(Kept::gemmPackB)] = avx512::packBufferFloatsB();
    break;
  case Isa::avx2:
    scratch.floats[int(Kept::gemmPackA)] = avx2::packBufferFloatsA();
    scratch.floats[int(Kept::gemmPackB)] = avx2::packBufferFloatsB();
    break;
  default: // the scalar loops keep nothing
    break;
  }
  return scratch;
}

} // namespace nn_rt

extern "C" void nn_rt_sgemm(int64_t M, int64_t N, int64_t K, const float *A,
                            int64_t rsA, int64_t csA, const float *B,
                            int64_t rsB, int64_t csB, float *C, int64_t rsC,
                            int32_t accumulate,
                            const nn_rt_epilogue *epilogue) {
  if (M <= 0 || N <= 0)
    return;
  runGemm(nn_rt::GemmArgs{M, N, K, A, rsA, csA, B, rsB, csB, C, rsC,
                          accumulate != 0, nn_rt::epilogueOrNone(epilogue),
                          nullptr});
}

extern "C" void nn_rt_sgemm_b_windows(int64_t M, int64_t N, int64_t K,
                                      const float *A, int64_t rsA, int64_t csA,
                                      const float *B, int64_t rsB, int64_t csB,
                                      int64_t windows,
                                      const int64_t *rowOffsets, float *C,
                                      int64_t rsC, int32_t accumulate,
                                      const nn_rt_epilogue *epilogue) {
  if (M <= 0 || N <= 0 || windows <= 0 || N % windows != 0)
    return;
  nn_rt::GemmArgs g{M,
                    N,
                    K,
                    A,
                    rsA,
                    csA,
                    B,
                    rsB,
                    csB,
                    C,
                    rsC,
                    accumulate != 0,
                    nn_rt::epilogueOrNone(epilogue),
                    nullptr};
  g.bRowOffsets = rowOffsets;
  g.bWindowCols = N / windows;
  runGemm(g);
}

extern "C" int64_t nn_rt_sgemm_pack_b_size(int64_t K, int64_t N) {
  if (K <= 0 || N <= 0)
    return 0;
  return packedBFloats(K, N) * static_cast<int64_t>(sizeof(float));
}

extern "C" void nn_rt_sgemm_pack_b(int64_t K, int64_t N, const float *B,
                                   int64_t rsB, int64_t csB, float *packed) {
  if (K <= 0 || N <= 0 || !packed)
    return;
  nn_rt::GemmArgs g = {};
  g.N = N, g.K = K, g.B = B, g.rsB = rsB, g.csB = csB;
  switch (isa()) {
  case Isa::avx512:
    return nn_rt::avx512::packAllB(g, packed);
  case Isa::avx2:
    return nn_rt::avx2::packAllB(g, packed);
  default:
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        packed[k * N + n] = B[k * rsB + n * csB];
  }
}

extern "C" void nn_rt_sgemm_packed_b(int64_t M, int64_t N, int64_t K,
                                     const float *A, int64_t rsA, int64_t csA,
                                     const float *packedB, float *C,
                                     int64_t rsC, int32_t accumulate,
                                     const nn_rt_epilogue *epilogue) {
  if (M <= 0 || N <= 0)
    return;
  nn_rt::GemmArgs g{M,
                    N,
                    K,
                    A,
                    rsA,
                    csA,
                    nullptr,
                    0,
                    0,
                    C,
                    rsC,
                    accumulate != 0,
                    nn_rt::epilogueOrNone(epilogue),
                    packedB};
  if (isa() == Isa::scalar) // the row-major copy, read through strides
    g.B = packedB, g.rsB = N, g.csB = 1, g.packedB = nullptr;
  runGemm(g);
}

extern "C" int64_t nn_rt_conv2d_pack_weight_size(
    int64_t C, int64_t H, int64_t W, int64_t O, int64_t KH, int64_t KW,
    int64_t strideH, int64_t strideW, int64_t padTop, int64_t padLeft,
    int64_t dilationH, int64_t dilationW, int64_t OH, int64_t OW) {
  if (O <= 0 || C * KH * KW <= 0)
    return 0;
  nn_rt::ConvArgs cv = convShape(C, H, W, O, KH, KW, nullptr, strideH, strideW,
                                 padTop, padLeft, dilationH, dilationW, OH, OW);
  int64_t floats;
  if (nn_rt::directConvApplies(cv))
    floats = nn_rt::directPackedWeightSize(
        O, C, KH * KW, nn_rt::directConvBlock(nn_rt::directConvTiles(cv)));
  else if (isa() == Isa::avx512)
    floats = nn_rt::avx512::packedWeightSize(cv);
  else if (isa() == Isa::avx2)
    floats = nn_rt::avx2::packedWeightSize(cv);
  else
    floats = O * C * KH * KW;
  return floats * static_cast<int64_t>(sizeof(float));
}

extern "C" void nn_rt_conv2d_pack_weight(int64_t C, int64_t H, int64_t W,
                                         int64_t O, int64_t KH, int64_t KW,
                                         const float *weight, int64_t strideH,
                                         int64_t strideW, int64_t padTop,
                                         int64_t padLeft, int64_t dilationH,
                                         int64_t dilationW, int64_t OH,
                                         int64_t OW, float *packed) {
  if (O <= 0 || C * KH * KW <= 0 || !packed)
    return;
  nn_rt::ConvArgs cv = convShape(C, H, W, O, KH, KW, weight, strideH, strideW,
                                 padTop, padLeft, dilationH, dilationW, OH, OW);
  if (nn_rt::directConvApplies(cv))
    return nn_rt::packDirectConvWeights(
        weight, O, C, KH * KW,
        nn_rt::directConvBlock(nn_rt::directConvTiles(cv)), packed);
  switch (isa()) {
  case Isa::avx512:
    return nn_rt::avx512::packWeights(cv, packed);
  case Isa::avx2:
    return nn_rt::avx2::packWeights(cv, packed);
  default:
    for (int64_t i = 0, n = O * C * KH * KW; i < n; ++i)
      packed[i] = weight[i];
  }
}

extern "C" void nn_rt_conv2d_nchw_packed(
    int64_t N, int64_t C, int64_t H, int64_t W, const float *input, int64_t O,
    int64_t KH, int64_t KW, const float *packedWeight, int64_t strideH,
    int64_t strideW, int64_t padTop, int64_t padLeft, int64_t dilationH,
    int64_t dilationW, int64_t OH, int64_t OW, float *output,
    const nn_rt_epilogue *epilogue) {
  if (N <= 0 || O <= 0 || OH <= 0 || OW <= 0)
    return;
  nn_rt::ConvArgs cv = nn_rt::convArgs(
      N, C, H, W, input, O, KH, KW, nullptr, strideH, strideW, padTop, padLeft,
      dilationH, dilationW, OH, OW, output, epilogue);
  // The same choice as nn_rt_conv2d_pack_weight made for this geometry.
  if (nn_rt::directConvApplies(cv))
    return nn_rt::runDirectConv(cv, packedWeight);
  if (isa() == Isa::scalar) // the packed form is the OIHW copy
    cv.weight = packedWeight;
  else
    cv.packedWeight = packedWeight;
  runConv(cv);
}

extern "C" void nn_rt_conv2d_nchw(int64_t N, int64_t C, int64_t H, int64_t W,
                                  const float *input, int64_t O, int64_t KH,
                                  int64_t KW, const float *weight,
                                  int64_t strideH, int64_t strideW,
                                  int64_t padTop, int64_t padLeft,
                                  int64_t dilationH, int64_t dilationW,
                                  int64_t OH, int64_t OW, float *output,
                                  const nn_rt_epilogue *epilogue) {
  if (N <= 0 || O <= 0 || OH <= 0 || OW <= 0)
    return;
  nn_rt::ConvArgs cv = nn_rt::convArgs(
      N, C, H, W, input, O, KH, KW, weight, strideH, strideW, padTop, padLeft,
      dilationH, dilationW, OH, OW, output, epilogue);
  if (nn_rt::directConvApplies(cv))
    nn_rt::runDirectConv(cv, nullptr);
  else
    nn_rt::runGemmConv(cv);
}

//===----------------------------------------------------------------------===//
// For the batched kernels (KernelsInternal.h)
//===----------------------------------------------------------------------===//

void nn_rt::gemmOnThisThread(const GemmArgs &g, int64_t m0, int64_t m1,
                             int64_t n0, int64_t n1) {
  gemmRange(g, m0, m1, n0, n1);
}

void nn_rt::registerTile(int64_t &mr, int64_t &nr) { tile(mr, nr); }

int64_t nn_rt::gemmPackedBFloats(int64_t K, int64_t N) {
  return isa() == Isa::scalar ? 0 : packedBFloats(K, N);
}

void nn_rt::gemmPackB(const GemmArgs &g, float *dst) {
  switch (isa()) {
  case Isa::avx512:
    return nn_rt::avx512::packAllB(g, dst);
  case Isa::avx2:
    return nn_rt::avx2::packAllB(g, dst);
  default:
    return;
  }
}

bool nn_rt::worthParallel(double macs) {
  return nn_rt_get_num_threads() > 1 && macs >= kMinParallelWork;
}

/// A row block read in place (no thread packs A), split in whole column
/// panels (a thread reads or packs only its own columns of B), at least one
/// panel per thread: the threads repeat nothing the serial GEMM does once.
bool nn_rt::splitsSmallGemm(const GemmArgs &g, int64_t threads) {
  if (threads <= 1 || g.K <= 0 || !readsAInPlace(g))
    return false;
  int64_t mr, nr;
  tile(mr, nr);
  return (g.N + nr - 1) / nr >= threads &&
         double(g.M) * g.N * g.K >= kMinSmallGemmParallelWork;
}

bool nn_rt::hasAvx2Fma() { return isa() == Isa::avx2 || isa() == Isa::avx512; }
