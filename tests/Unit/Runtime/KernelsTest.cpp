//===- KernelsTest.cpp - nn_kernels against plain loops -------------------===//
//
// The micro-kernels (nn/Runtime/Kernels.h) on shapes that are not multiples
// of the register tile, transposed operands, every epilogue, convolution
// windows with stride, padding and dilation, on 1 and 3 threads.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <vector>

namespace {

std::vector<float> randomVector(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

class KernelsTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { nn_rt_set_num_threads(GetParam()); }
  void TearDown() override { nn_rt_set_num_threads(1); }
  std::mt19937 rng{42};
};

struct GemmCase {
  int64_t M, N, K;
  bool transposeB, accumulate, rowBias, relu;
};

TEST_P(KernelsTest, SgemmMatchesLoops) {
  for (GemmCase c : {GemmCase{1, 1, 1, false, false, false, false},
                     GemmCase{7, 13, 5, true, false, false, true},
                     GemmCase{64, 256, 784, true, false, false, true},
                     GemmCase{37, 53, 300, false, true, false, false},
                     GemmCase{100, 70, 600, false, false, true, true},
                     GemmCase{6, 16, 0, false, true, false, true},
                     GemmCase{150, 33, 257, true, true, true, false}}) {
    SCOPED_TRACE(::testing::Message() << c.M << "x" << c.N << "x" << c.K);
    auto A = randomVector(c.M * c.K, rng), B = randomVector(c.K * c.N, rng);
    auto bias = randomVector(c.rowBias ? c.M : c.N, rng);
    auto C = randomVector(c.M * c.N, rng), want = C;
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t n = 0; n < c.N; ++n) {
        double acc = c.accumulate ? want[m * c.N + n] : 0.0;
        for (int64_t k = 0; k < c.K; ++k)
          acc += A[m * c.K + k] *
                 (c.transposeB ? B[n * c.K + k] : B[k * c.N + n]);
        acc += bias[c.rowBias ? m : n];
        want[m * c.N + n] = c.relu ? std::max(acc, 0.0) : acc;
      }
    nn_rt_sgemm(c.M, c.N, c.K, A.data(), c.K, 1, B.data(),
                c.transposeB ? 1 : c.N, c.transposeB ? c.K : 1, C.data(), c.N,
                bias.data(), c.rowBias ? 1 : 0, c.rowBias ? 0 : 1,
                c.accumulate, c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE);
    for (int64_t i = 0; i < c.M * c.N; ++i)
      ASSERT_NEAR(C[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "at " << i;
  }
}

struct ConvCase {
  int64_t N, C, H, W, O, KH, KW, stride, pad, dilation;
  bool bias, relu;
};

TEST_P(KernelsTest, Conv2dMatchesLoops) {
  for (ConvCase c : {ConvCase{2, 5, 9, 11, 7, 3, 3, 1, 1, 1, true, false},
                     ConvCase{3, 4, 10, 8, 9, 3, 3, 2, 1, 1, false, true},
                     ConvCase{1, 3, 12, 12, 20, 3, 2, 1, 2, 2, true, true},
                     ConvCase{4, 16, 7, 7, 8, 1, 1, 1, 0, 1, true, false}}) {
    int64_t OH = (c.H + 2 * c.pad - c.dilation * (c.KH - 1) - 1) / c.stride + 1;
    int64_t OW = (c.W + 2 * c.pad - c.dilation * (c.KW - 1) - 1) / c.stride + 1;
    auto in = randomVector(c.N * c.C * c.H * c.W, rng);
    auto w = randomVector(c.O * c.C * c.KH * c.KW, rng);
    auto b = randomVector(c.O, rng);
    std::vector<float> out(c.N * c.O * OH * OW, NAN);
    nn_rt_conv2d_nchw(c.N, c.C, c.H, c.W, in.data(), c.O, c.KH, c.KW, w.data(),
                      c.bias ? b.data() : nullptr, c.stride, c.stride, c.pad,
                      c.pad, c.dilation, c.dilation, OH, OW, out.data(),
                      c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE);
    for (int64_t n = 0; n < c.N; ++n)
      for (int64_t o = 0; o < c.O; ++o)
        for (int64_t y = 0; y < OH; ++y)
          for (int64_t x = 0; x < OW; ++x) {
            double acc = c.bias ? b[o] : 0.0;
            for (int64_t ch = 0; ch < c.C; ++ch)
              for (int64_t ky = 0; ky < c.KH; ++ky)
                for (int64_t kx = 0; kx < c.KW; ++kx) {
                  int64_t iy = y * c.stride - c.pad + ky * c.dilation;
                  int64_t ix = x * c.stride - c.pad + kx * c.dilation;
                  if (iy >= 0 && iy < c.H && ix >= 0 && ix < c.W)
                    acc += in[((n * c.C + ch) * c.H + iy) * c.W + ix] *
                           w[((o * c.C + ch) * c.KH + ky) * c.KW + kx];
                }
            if (c.relu)
              acc = std::max(acc, 0.0);
            float got = out[((n * c.O + o) * OH + y) * OW + x];
            ASSERT_NEAR(got, acc, 1e-4 * (1 + std::abs(acc)))
                << "image " << n << " channel " << o << " at " << y << "," << x;
          }
  }
}

TEST_P(KernelsTest, ParallelForCoversTheRangeOnce) {
  std::vector<std::atomic<int>> hits(1000);
  nn_rt_parallel_for(
      1000,
      [](void *ctx, int64_t begin, int64_t end) {
        auto *h = static_cast<std::vector<std::atomic<int>> *>(ctx);
        for (int64_t i = begin; i < end; ++i)
          (*h)[i]++;
      },
      &hits);
  for (auto &h : hits)
    ASSERT_EQ(h.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Threads, KernelsTest, ::testing::Values(1, 3));

} // namespace
