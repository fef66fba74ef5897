//===- PoolingTest.cpp - nn_rt_max_pool2d_nchw vs a plain loop ------------===//
//
// The max pooling kernel against the loop PyTorch's CPU kernel runs (padding
// never read, a NaN in the window is the result): strides 1 to 3 (the
// unit- and 2-strided column loops and the general one), kernels 1x1 to
// 5x3, padding up to half the kernel, dilation, ceil mode's last window
// ending past the input, a plane where a NaN sits at the start, middle and
// end of windows, on 1 and 2 threads with sizes on both sides of the
// threading bound.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

struct Pool {
  int64_t N, C, H, W, KH, KW, SH, SW, PH, PW, DH, DW;
  bool ceil;
};

/// The output size of one dimension as nn.max_pool (and PyTorch) gives it.
int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                bool ceil) {
  int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  // The last window must start inside the input or its low padding.
  if (ceil && (out - 1) * s >= in + p)
    --out;
  return out;
}

std::vector<float> reference(const Pool &p, const std::vector<float> &in,
                             int64_t OH, int64_t OW) {
  std::vector<float> out(p.N * p.C * OH * OW);
  for (int64_t plane = 0; plane < p.N * p.C; ++plane)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        float m = -std::numeric_limits<float>::infinity();
        for (int64_t kh = 0; kh < p.KH; ++kh)
          for (int64_t kw = 0; kw < p.KW; ++kw) {
            int64_t ih = oh * p.SH - p.PH + kh * p.DH,
                    iw = ow * p.SW - p.PW + kw * p.DW;
            if (ih < 0 || ih >= p.H || iw < 0 || iw >= p.W)
              continue;
            float v = in[(plane * p.H + ih) * p.W + iw];
            if (v > m || std::isnan(v))
              m = v;
          }
        out[(plane * OH + oh) * OW + ow] = m;
      }
  return out;
}

void expectPool(const Pool &p, const std::vector<float> &in, int threads) {
  int64_t OH = outSize(p.H, p.KH, p.SH, p.PH, p.DH, p.ceil),
          OW = outSize(p.W, p.KW, p.SW, p.PW, p.DW, p.ceil);
  std::vector<float> want = reference(p, in, OH, OW);
  std::vector<float> got(want.size(), 12345.f);
  nn_rt_set_num_threads(threads);
  nn_rt_max_pool2d_nchw(p.N, p.C, p.H, p.W, in.data(), p.KH, p.KW, p.SH, p.SW,
                        p.PH, p.PW, p.DH, p.DW, OH, OW, got.data());
  nn_rt_set_num_threads(1);
  for (size_t i = 0; i < want.size(); ++i) {
    // Bit for bit: a maximum is one of its inputs (or -inf, or NaN).
    bool same = std::isnan(want[i])
                    ? std::isnan(got[i])
                    : std::memcmp(&want[i], &got[i], sizeof(float)) == 0;
    ASSERT_TRUE(same) << "element " << i << " of [" << p.N << ", " << p.C
                      << ", " << OH << ", " << OW << "]: " << got[i]
                      << " instead of " << want[i] << " (kernel " << p.KH << "x"
                      << p.KW << ", stride " << p.SH << "x" << p.SW
                      << ", padding " << p.PH << "x" << p.PW << ", dilation "
                      << p.DH << "x" << p.DW << (p.ceil ? ", ceil mode" : "")
                      << ", " << threads << " threads)";
  }
}

std::vector<float> randomInput(const Pool &p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  std::vector<float> in(p.N * p.C * p.H * p.W);
  for (float &v : in)
    v = dist(rng);
  return in;
}

TEST(MaxPool2dKernel, MatchesTheLoopOverGeometries) {
  const Pool pools[] = {
      {4, 3, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1,
       false}, // ResNet's stem, threaded
      {1, 4, 9, 11, 3, 3, 1, 1, 1, 1, 1, 1, false},
      {1, 2, 8, 8, 2, 2, 2, 2, 0, 0, 1, 1, false},
      {2, 3, 7, 10, 3, 2, 2, 2, 1, 1, 1, 1, true},   // ceil mode
      {1, 3, 10, 13, 3, 3, 3, 3, 1, 0, 1, 1, true},  // stride 3
      {1, 2, 13, 17, 5, 3, 2, 1, 2, 1, 1, 1, false}, // asymmetric
      {1, 2, 12, 15, 3, 3, 1, 2, 1, 1, 2, 2, false}, // dilation
      {1, 2, 5, 6, 1, 1, 2, 2, 0, 0, 1, 1, false},   // 1x1 subsampling
      {3, 5, 1, 37, 1, 4, 1, 3, 0, 2, 1, 1, true},   // one row
  };
  unsigned seed = 1;
  for (const Pool &p : pools)
    for (int threads : {1, 2})
      expectPool(p, randomInput(p, seed++), threads);
}

TEST(MaxPool2dKernel, PropagatesNaNLikePyTorch) {
  // NaNs at a window's first, middle and last cell, and in the padding's
  // shadow at the border; a NaN read after a larger value and before one.
  Pool p = {1, 2, 6, 7, 3, 3, 2, 2, 1, 1, 1, 1, true};
  std::vector<float> in = randomInput(p, 7);
  float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i : {0, 9, 20, 41, 42 + 24, 42 + 41})
    in[i] = nan;
  expectPool(p, in, 1);
  expectPool(p, in, 2);
}

TEST(MaxPool2dKernel, AllNegativeInfinityAndEmpty) {
  // -inf everywhere stays -inf (the padding is never a larger value), and
  // an empty output writes nothing.
  Pool p = {1, 1, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, false};
  std::vector<float> in(16, -std::numeric_limits<float>::infinity());
  expectPool(p, in, 1);
  float untouched = 3.f;
  nn_rt_max_pool2d_nchw(0, 1, 4, 4, in.data(), 3, 3, 1, 1, 1, 1, 1, 1, 4, 4,
                        &untouched);
  EXPECT_EQ(untouched, 3.f);
}

} // namespace
