//===- DirectConvTest.cpp - Direct and depthwise convolution vs loops -----===//
//
// The direct convolution kernel (KernelsInternal.h) and the implicit GEMM it
// sits beside, each called on its own and through nn_rt_conv2d_nchw, and
// nn_rt_conv2d_depthwise_nchw, against a plain loop in double: odd sizes,
// strides 1 to 3, asymmetric padding, dilation, 1x1 to 7x7 windows,
// batches 1 to 3, every epilogue (strided addends take the scalar store),
// output channel counts that are not a multiple of the register block, on
// 1, 2 and 3 threads.
//
//===----------------------------------------------------------------------===//

#include "ConvReference.h"
#include "Kernels/KernelsInternal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

using nn_test::ConvWindow;
using nn_test::describeEpilogue;
using nn_test::expectConvNear;
using nn_test::randomVector;
using nn_test::referenceConv;
using nn_test::testEpilogue;

/// Which implementation computes the convolution: the entry point (the
/// dispatcher's choice), either tile shape of the direct kernel (packing
/// its weights itself or given them packed), or the implicit GEMM.
enum class Path {
  entry,
  directPixels,
  directPixelsPrepacked,
  directChannels,
  directChannelsPrepacked,
  directNarrowChannels,
  gemm
};

/// The instruction sets the direct kernel's tiles can run in on this CPU:
/// its own, and AVX2's too where it has AVX-512 (which the dispatcher takes
/// on CPUs that run AVX-512 on half-width units).
std::vector<nn_rt::IsaLevel> tileIsas() {
  if (nn_rt::isaLevel() == nn_rt::IsaLevel::avx512)
    return {nn_rt::IsaLevel::avx512, nn_rt::IsaLevel::avx2};
  return {nn_rt::isaLevel()};
}

/// The direct kernel's tiles in one instruction set while it lives.
class TileIsa {
public:
  explicit TileIsa(nn_rt::IsaLevel isa) { nn_rt::setDirectConvIsa(isa); }
  ~TileIsa() { nn_rt::clearDirectConvIsa(); }
  TileIsa(const TileIsa &) = delete;
  TileIsa &operator=(const TileIsa &) = delete;
};

const char *isaName(nn_rt::IsaLevel isa) {
  return isa == nn_rt::IsaLevel::avx512 ? "avx512"
         : isa == nn_rt::IsaLevel::avx2 ? "avx2"
                                        : "scalar";
}

nn_rt::DirectTiles tilesOf(Path path) {
  if (path == Path::directNarrowChannels)
    return nn_rt::DirectTiles::narrowChannels;
  return path == Path::directChannels || path == Path::directChannelsPrepacked
             ? nn_rt::DirectTiles::channels
             : nn_rt::DirectTiles::pixels;
}

/// A window's random input and weights, and an epilogue of a random bias
/// per output channel and relu.
struct WindowData {
  WindowData(const ConvWindow &w, std::mt19937 &rng)
      : in(randomVector(w.N * w.C * w.H * w.W, rng)),
        weight(randomVector(w.O * w.C * w.KH * w.KW, rng)),
        bias(randomVector(w.O, rng)) {
    ep.addends[0] = {bias.data(), 0, 1, 0};
    ep.activation = NN_RT_ACT_RELU;
  }
  WindowData(const WindowData &) = delete; // ep points into bias
  WindowData &operator=(const WindowData &) = delete;

  std::vector<float> in, weight, bias;
  nn_rt_epilogue ep = {};
};

class DirectConvTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { nn_rt_set_num_threads(GetParam()); }
  void TearDown() override { nn_rt_set_num_threads(1); }

  /// Runs `w` through `path` and checks it against the reference, and that
  /// nothing was written past the output.
  void check(const ConvWindow &w, Path path, const nn_rt_epilogue &ep,
             const std::vector<float> &in, const std::vector<float> &weight) {
    std::vector<float> out = run(w, path, ep, in, weight);
    expectConvNear(out, referenceConv(w, 1, in, weight, ep), w);
  }

  /// check() of both direct tile shapes in every instruction set the tiles
  /// have on this CPU (none without vector tiles).
  void checkDirectTiles(const ConvWindow &w, const nn_rt_epilogue &ep,
                        const std::vector<float> &in,
                        const std::vector<float> &weight) {
    if (nn_rt::isaLevel() == nn_rt::IsaLevel::scalar)
      return;
    for (nn_rt::IsaLevel isa : tileIsas()) {
      SCOPED_TRACE(isaName(isa));
      TileIsa scope(isa);
      check(w, Path::directPixels, ep, in, weight);
      check(w, Path::directChannels, ep, in, weight);
      check(w, Path::directNarrowChannels, ep, in, weight);
    }
  }

  /// `w`'s output through `path`, after checking that nothing was written
  /// past it.
  std::vector<float> run(const ConvWindow &w, Path path,
                         const nn_rt_epilogue &ep, const std::vector<float> &in,
                         const std::vector<float> &weight) {
    const size_t size = w.N * w.O * w.OH() * w.OW(), guard = 64;
    std::vector<float> out(size + guard, NAN);
    nn_rt::ConvArgs cv = nn_rt::convArgs(
        w.N, w.C, w.H, w.W, in.data(), w.O, w.KH, w.KW, weight.data(),
        w.strideH, w.strideW, w.padTop, w.padLeft, w.dilationH, w.dilationW,
        w.OH(), w.OW(), out.data(), &ep);
    std::vector<float> packed;
    switch (path) {
    case Path::entry:
      nn_rt_conv2d_nchw(w.N, w.C, w.H, w.W, in.data(), w.O, w.KH, w.KW,
                        weight.data(), w.strideH, w.strideW, w.padTop,
                        w.padLeft, w.dilationH, w.dilationW, w.OH(), w.OW(),
                        out.data(), &ep);
      break;
    case Path::directPixels:
    case Path::directChannels:
    case Path::directNarrowChannels:
      nn_rt::runDirectConv(cv, nullptr, tilesOf(path));
      break;
    case Path::directPixelsPrepacked:
    case Path::directChannelsPrepacked: {
      int64_t block = nn_rt::directConvBlock(tilesOf(path)), taps = w.KH * w.KW;
      packed.resize(nn_rt::directPackedWeightSize(w.O, w.C, taps, block));
      nn_rt::packDirectConvWeights(weight.data(), w.O, w.C, taps, block,
                                   packed.data());
      nn_rt::runDirectConv(cv, packed.data(), tilesOf(path));
      break;
    }
    case Path::gemm:
      nn_rt::runGemmConv(cv);
      break;
    }
    for (size_t i = size; i < size + guard; ++i)
      EXPECT_TRUE(std::isnan(out[i])) << "written " << i - size << " past";
    out.resize(size);
    return out;
  }

  std::mt19937 rng{7};
};

const ConvWindow kConvWindows[] = {
    // W2's layer, shrunk: 3x3 pad 1, a row (18) that is not a multiple of 8.
    {2, 16, 18, 18, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // Odd everything; 7 output channels (a partial block).
    {3, 5, 9, 11, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // Stride 2 (ResNet's downsampling 3x3), odd input.
    {1, 6, 13, 15, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
    // Stride 2 without padding: the last input row and column are unread.
    {2, 4, 10, 10, 8, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1},
    // 1x1 stride 2 (ResNet's projection shortcut): one of four phases read.
    {2, 12, 9, 9, 10, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1},
    // 1x1 with padding (a ring of bias-only outputs).
    {1, 3, 5, 6, 5, 1, 1, 1, 1, 1, 2, 1, 2, 1, 1},
    // 5x5 pad 2, and 7x7 stride 2 pad 3 (ResNet's stem), 3 channels in.
    {1, 4, 12, 10, 6, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
    {1, 3, 23, 21, 8, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1},
    // Dilation 2 with and without stride; dilation and stride 2 share a
    // phase.
    {1, 3, 12, 12, 20, 3, 2, 1, 1, 2, 2, 2, 2, 2, 2},
    {2, 5, 14, 13, 4, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2},
    // Different strides per axis, asymmetric pads (bottom/right smaller).
    {1, 4, 11, 17, 5, 3, 3, 3, 1, 1, 2, 0, 1, 1, 1},
    // A window as large as the image, a single output pixel per image.
    {3, 4, 5, 5, 6, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1},
    // A tall narrow image: many bands, 1-pixel rows.
    {1, 3, 40, 1, 5, 3, 1, 1, 1, 1, 0, 1, 0, 1, 1},
    // Many channels (several K blocks for the GEMM) on a small image.
    {1, 70, 6, 7, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // O > 144 (the GEMM's MC): row blocks of its packed weights; 38 direct
    // blocks, the last partial.
    {1, 8, 6, 6, 150, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // O > 288, the AVX-512 GEMM's MC; 38 AVX-512 direct blocks, the last
    // partial.
    {1, 4, 5, 5, 300, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // Enough work to be split over the threads (bands of both images).
    {2, 32, 48, 47, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // W2's rows (56: whole vectors only) and channels: three bands of an
    // image, each prefetching the next one's input.
    {2, 64, 30, 56, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    // One image with enough work to split: the threads share its output
    // channels in groups of whole blocks (100 channels: the last block,
    // and so the last group, partial) rather than thin bands.
    {1, 64, 26, 26, 100, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
};

TEST_P(DirectConvTest, EveryPathMatchesLoops) {
  for (const ConvWindow &w : kConvWindows) {
    SCOPED_TRACE(::testing::Message() << w);
    const WindowData d(w, rng);
    const auto &in = d.in, &weight = d.weight;
    const nn_rt_epilogue &ep = d.ep;
    nn_rt::ConvArgs cv{w.N,       w.C,      w.H,       w.W,         nullptr,
                       w.O,       w.KH,     w.KW,      nullptr,     w.strideH,
                       w.strideW, w.padTop, w.padLeft, w.dilationH, w.dilationW,
                       w.OH(),    w.OW(),   nullptr,   ep,          nullptr};
    if (nn_rt::isaLevel() != nn_rt::IsaLevel::scalar) {
      // Every window here is one the direct kernel can run, whether or not
      // the dispatcher would choose it for this geometry.
      ASSERT_TRUE(nn_rt::vectorWindow(cv));
      for (nn_rt::IsaLevel isa : tileIsas()) {
        SCOPED_TRACE(isaName(isa));
        TileIsa scope(isa);
        for (Path path : {Path::directPixels, Path::directPixelsPrepacked,
                          Path::directChannels, Path::directChannelsPrepacked,
                          Path::directNarrowChannels})
          check(w, path, ep, in, weight);
      }
    }
    check(w, Path::gemm, ep, in, weight);
    check(w, Path::entry, ep, in, weight);
  }
}

/// The tiles' instruction set changes no bit of any output (so the
/// dispatcher may run either): both sum every output over its channels,
/// then its taps, in one order, and apply the epilogue alike.
TEST_P(DirectConvTest, TileIsasGiveTheSameBits) {
  if (tileIsas().size() < 2)
    GTEST_SKIP() << "the tiles have one instruction set on this CPU";
  for (const ConvWindow &w : kConvWindows) {
    SCOPED_TRACE(::testing::Message() << w);
    const WindowData d(w, rng);
    const auto &in = d.in, &weight = d.weight;
    const nn_rt_epilogue &ep = d.ep;
    for (Path path : {Path::directPixels, Path::directChannels,
                      Path::directNarrowChannels}) {
      std::vector<std::vector<float>> outs;
      for (nn_rt::IsaLevel isa : tileIsas()) {
        TileIsa scope(isa);
        outs.push_back(run(w, path, ep, in, weight));
      }
      for (size_t i = 1; i < outs.size(); ++i)
        EXPECT_EQ(0, std::memcmp(outs[0].data(), outs[i].data(),
                                 outs[0].size() * sizeof(float)))
            << (path == Path::directPixels     ? "pixel"
                : path == Path::directChannels ? "channel"
                                               : "narrow channel")
            << " tiles differ between instruction sets";
    }
  }
}

/// The dispatcher's choice among the direct kernel's pixel tiles, its
/// channel tiles and the GEMM, by the part of their lanes each fills.
TEST_P(DirectConvTest, TilesFollowTheLanesTheyFill) {
  if (nn_rt::isaLevel() == nn_rt::IsaLevel::scalar)
    GTEST_SKIP() << "no vector kernels on this CPU";
  // In the instruction set the dispatcher runs the tiles in.
  const bool avx512 = nn_rt::directConvIsa() == nn_rt::IsaLevel::avx512;
  auto args = [](int64_t size, int64_t C, int64_t O) {
    nn_rt_epilogue ep = {};
    return nn_rt::convArgs(1, C, size, size, nullptr, O, 3, 3, nullptr, 1, 1, 1,
                           1, 1, 1, size, size, nullptr, &ep);
  };
  using nn_rt::DirectTiles;
  // ResNet's first 3x3 layers: rows of 56 fill 7 of 7 AVX2 vectors, 56 of
  // 58 AVX-512 lanes (joined rows), and 64 input channels leave the channel
  // tiles' stores too large a part: pixel tiles.
  EXPECT_TRUE(nn_rt::directConvApplies(args(56, 64, 64)));
  EXPECT_EQ(nn_rt::directConvTiles(args(56, 64, 64)), DirectTiles::pixels);
  // Its last ones: 7x7 images fill 49 of 64 AVX-512 lanes (rows joined in
  // a pitch of 9), where 512 output channels fill every lane of the
  // channel tiles of 7 pixels (and 49 of 56 of the tiles of 14). At 14x14
  // both fill every lane: the wide ones.
  EXPECT_TRUE(nn_rt::directConvApplies(args(7, 512, 512)));
  if (avx512) {
    EXPECT_EQ(nn_rt::directConvTiles(args(7, 512, 512)),
              DirectTiles::narrowChannels);
    EXPECT_EQ(nn_rt::directConvTiles(args(14, 256, 256)),
              DirectTiles::channels);
  }
  // 5 output channels of rows of 7: the pixel tiles fill 49 of 64 AVX-512
  // lanes, as many as the GEMM's column tiles of the image's 49 pixels but
  // without its im2col copy, and 7 of 8 AVX2 lanes: the direct kernel.
  EXPECT_TRUE(nn_rt::directConvApplies(args(7, 64, 5)));
  // Row by row (the AVX-512 tiles, were rows not joined), 7 of 16 lanes
  // would lose to the GEMM's 49 of 64.
  EXPECT_EQ(nn_rt::directVectors(7, 7, 9, 16, false), 7);
  EXPECT_EQ(nn_rt::directVectors(7, 7, 9, 16, true), 4);
  EXPECT_TRUE(nn_rt::directJoinRows(7, 7, 9, 16, true));
  // Rows of 64 in a pitch of 66 would compute more vectors joined.
  EXPECT_FALSE(nn_rt::directJoinRows(8, 64, 66, 16, true));
  EXPECT_FALSE(nn_rt::directJoinRows(7, 7, 9, 16, false));
}

/// Every output width from 1 to a tile and a vector past the tile (33 on
/// AVX2, 65 on AVX-512: every position of a row's end in a vector, so
/// every way a vector can end in the dropped columns, of the image's last
/// row too) at strides 1 and 2, 1 to 5 rows.
TEST_P(DirectConvTest, EveryRowWidthMatchesLoops) {
  int64_t widest = 0;
  for (nn_rt::IsaLevel isa : tileIsas()) {
    TileIsa scope(isa);
    widest = std::max(widest, nn_rt::directConvTileWidth() +
                                  nn_rt::directConvVectorWidth() + 1);
  }
  for (int64_t stride : {1, 2})
    for (int64_t H : {1, 2, 5})
      for (int64_t W = 1; W <= widest; ++W) {
        const ConvWindow w{2,      3, H, W, 5, 3, 3, stride,
                           stride, 1, 1, 1, 1, 1, 1};
        SCOPED_TRACE(::testing::Message() << w);
        auto in = randomVector(w.N * w.C * w.H * w.W, rng);
        auto weight = randomVector(w.O * w.C * 9, rng);
        auto bias = randomVector(w.O, rng);
        nn_rt_epilogue ep = {};
        ep.addends[0] = {bias.data(), 0, 1, 0};
        ep.activation = NN_RT_ACT_LEAKY_RELU;
        ep.slope = 0.25f;
        checkDirectTiles(w, ep, in, weight);
        check(w, Path::entry, ep, in, weight);
      }
}

/// Every activation with a bias and a residual of the output's shape, and
/// addends the vector store cannot load (a residual with column stride 2, a
/// bias broadcast along rows), on a shape whose rows mix whole vectors with
/// vectors that cross the dropped columns.
TEST_P(DirectConvTest, EveryEpilogueMatchesLoops) {
  const ConvWindow w{3, 6, 9, 21, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  const int64_t OH = w.OH(), OW = w.OW(), P = OH * OW;
  auto in = randomVector(w.N * w.C * w.H * w.W, rng);
  auto weight = randomVector(w.O * w.C * w.KH * w.KW, rng);
  auto bias = randomVector(w.O, rng), pixelBias = randomVector(P, rng);
  auto residual = randomVector(2 * w.N * w.O * P, rng);
  const float *r = residual.data();
  for (const nn_rt_epilogue &ep :
       {testEpilogue({bias.data(), 0, 1, 0}, {r, w.O * P, P, 1},
                     NN_RT_ACT_RELU),
        testEpilogue({bias.data(), 0, 1, 0}, {r, w.O * P, P, 1},
                     NN_RT_ACT_CLAMP),
        testEpilogue({r, w.O * P, P, 1}, {}, NN_RT_ACT_LEAKY_RELU),
        testEpilogue({}, {pixelBias.data(), 0, 0, 1}, NN_RT_ACT_NONE),
        testEpilogue({r, 2 * w.O * P, 2 * P, 2}, {}, NN_RT_ACT_CLAMP),
        testEpilogue({}, {}, NN_RT_ACT_LEAKY_RELU)}) {
    SCOPED_TRACE(describeEpilogue(ep));
    check(w, Path::entry, ep, in, weight);
    checkDirectTiles(w, ep, in, weight);
  }
}

/// NaN in the input reaches exactly the outputs whose window reads it,
/// through relu and clamp, as torch's do.
TEST_P(DirectConvTest, NaNReachesItsConvWindowOnly) {
  const ConvWindow w{1, 2, 8, 20, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  std::vector<float> in(w.N * w.C * w.H * w.W, 1.f), weight(w.O * w.C * 9, 1.f);
  in[(1 * w.H + 4) * w.W + 10] = NAN; // channel 1, (4, 10)
  for (int32_t act : {NN_RT_ACT_RELU, NN_RT_ACT_CLAMP}) {
    nn_rt_epilogue ep = {};
    ep.activation = act;
    ep.min = 0.f;
    ep.max = 100.f;
    std::vector<float> out(w.O * w.OH() * w.OW());
    nn_rt_conv2d_nchw(w.N, w.C, w.H, w.W, in.data(), w.O, 3, 3, weight.data(),
                      1, 1, 1, 1, 1, 1, w.OH(), w.OW(), out.data(), &ep);
    for (int64_t o = 0; o < w.O; ++o)
      for (int64_t y = 0; y < w.OH(); ++y)
        for (int64_t x = 0; x < w.OW(); ++x) {
          bool reads = std::abs(y - 4) <= 1 && std::abs(x - 10) <= 1;
          EXPECT_EQ(std::isnan(out[(o * w.OH() + y) * w.OW() + x]), reads)
              << "activation " << act << " channel " << o << " at " << y << ","
              << x;
        }
  }
}

TEST_P(DirectConvTest, DepthwiseMatchesLoops) {
  const ConvWindow windows[] = {
      {2, 16, 18, 18, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {3, 5, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 6, 13, 15, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 7, 17, 14, 7, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
      {2, 3, 12, 12, 3, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1},
      {1, 4, 12, 13, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
      {1, 4, 6, 7, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1},
      {1, 2, 11, 17, 2, 3, 3, 3, 1, 1, 2, 0, 1, 1, 1},
      // Enough work to be split over the threads.
      {3, 32, 48, 48, 32, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
      // Rows wider than a tile (64 pixels on AVX-512), whose tiles span rows.
      {2, 3, 4, 70, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      // Stride 2 over rows of several vectors (the even columns of two
      // vectors per phase vector), odd and even widths, padding of 2 on
      // one side only, a dilated window.
      {2, 3, 9, 71, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 2, 10, 40, 2, 3, 3, 2, 2, 2, 2, 0, 0, 1, 1},
      {1, 2, 13, 37, 2, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2},
      // MobileNet's small planes: 7x7, and 14x14 halved.
      {2, 5, 7, 7, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 5, 14, 14, 5, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1},
      // Strides 3 and 4: their phases filled a float at a time.
      {1, 2, 19, 23, 2, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 2, 17, 34, 2, 5, 5, 4, 4, 2, 2, 2, 2, 1, 1},
      // Beyond the vector kernel's stride: the reference loops.
      {1, 3, 17, 17, 3, 3, 3, 5, 5, 1, 1, 1, 1, 1, 1},
      // Read in place (stride 1, the output the input's size): a plane
      // with whole groups of vectors away from its edges, rows of a whole
      // number of vectors (64 floats), one column, one row, a plane of
      // fewer pixels than a vector, and padding that keeps the size
      // unevenly (the masked loads' kernel, not the lane shifts').
      {2, 3, 40, 40, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 2, 10, 64, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {2, 2, 9, 1, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 3, 1, 20, 3, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1},
      {2, 3, 3, 2, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
      {1, 3, 10, 12, 3, 3, 3, 1, 1, 0, 2, 2, 0, 1, 1},
      {1, 2, 11, 30, 2, 3, 5, 1, 1, 2, 1, 0, 3, 1, 1},
      // 3x3 at stride 2 padded by 1, read in place on AVX-512: rows of
      // whole loads (112), MobileNet's 28 and 14, no bottom or right
      // padding.
      {1, 2, 6, 112, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 4, 28, 28, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {2, 3, 14, 14, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
      {1, 2, 9, 10, 2, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
      // 5x5 at stride 2 padded by 2 (EfficientNet's), rows of several
      // vectors, of an even and an odd width.
      {1, 2, 7, 80, 2, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1},
      {2, 2, 6, 65, 2, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1},
  };
  for (const ConvWindow &w : windows) {
    SCOPED_TRACE(::testing::Message() << w);
    const int64_t P = w.OH() * w.OW();
    auto in = randomVector(w.N * w.C * w.H * w.W, rng);
    auto weight = randomVector(w.C * w.KH * w.KW, rng);
    auto bias = randomVector(w.C, rng);
    auto residual = randomVector(w.N * w.C * P, rng);
    // Each activation after a per-channel bias alone, and with a residual
    // (an addend that varies over the plane).
    for (int32_t act : {NN_RT_ACT_NONE, NN_RT_ACT_RELU, NN_RT_ACT_CLAMP,
                        NN_RT_ACT_LEAKY_RELU})
      for (bool withResidual : {false, true}) {
        nn_rt_epilogue ep = testEpilogue(
            {bias.data(), 0, 1, 0},
            withResidual ? nn_rt_addend{residual.data(), w.C * P, P, 1}
                         : nn_rt_addend{},
            act);
        const size_t size = w.N * w.C * P, guard = 64;
        std::vector<float> out(size + guard, NAN);
        nn_rt_conv2d_depthwise_nchw(
            w.N, w.C, w.H, w.W, in.data(), w.KH, w.KW, weight.data(), w.strideH,
            w.strideW, w.padTop, w.padLeft, w.dilationH, w.dilationW, w.OH(),
            w.OW(), out.data(), &ep);
        for (size_t i = size; i < size + guard; ++i)
          ASSERT_TRUE(std::isnan(out[i])) << "written " << i - size << " past";
        out.resize(size);
        expectConvNear(out, referenceConv(w, w.C, in, weight, ep), w);
      }
  }
}

/// A null epilogue is none, as for nn_rt_conv2d_nchw.
TEST_P(DirectConvTest, DepthwiseWithoutEpilogue) {
  const ConvWindow w{1, 3, 7, 9, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  auto in = randomVector(w.C * w.H * w.W, rng);
  auto weight = randomVector(w.C * 9, rng);
  std::vector<float> out(w.C * w.OH() * w.OW(), NAN);
  nn_rt_conv2d_depthwise_nchw(1, w.C, w.H, w.W, in.data(), 3, 3, weight.data(),
                              1, 1, 1, 1, 1, 1, w.OH(), w.OW(), out.data(),
                              nullptr);
  expectConvNear(out, referenceConv(w, w.C, in, weight, nn_rt_epilogue{}), w);
}

INSTANTIATE_TEST_SUITE_P(Threads, DirectConvTest, ::testing::Values(1, 2, 3));

} // namespace
