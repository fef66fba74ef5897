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
    nn_rt_epilogue ep = {};
    ep.addends[0] = {bias.data(), 0, c.rowBias ? 1 : 0, c.rowBias ? 0 : 1};
    ep.activation = c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE;
    nn_rt_sgemm(c.M, c.N, c.K, A.data(), c.K, 1, B.data(),
                c.transposeB ? 1 : c.N, c.transposeB ? c.K : 1, C.data(), c.N,
                c.accumulate, &ep);
    for (int64_t i = 0; i < c.M * c.N; ++i)
      ASSERT_NEAR(C[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "at " << i;
  }
}

struct ConvCase {
  int64_t N, C, H, W, O, KH, KW, stride, pad, dilation;
  bool bias, relu;
};

/// Through the entry point, which picks the direct kernel for most of these
/// windows; DirectConvTest.cpp runs the implicit GEMM on each of its own.
TEST_P(KernelsTest, Conv2dMatchesLoops) {
  for (ConvCase c : {ConvCase{2, 5, 9, 11, 7, 3, 3, 1, 1, 1, true, false},
                     ConvCase{3, 4, 10, 8, 9, 3, 3, 2, 1, 1, false, true},
                     ConvCase{1, 3, 12, 12, 20, 3, 2, 1, 2, 2, true, true},
                     ConvCase{4, 16, 7, 7, 8, 1, 1, 1, 0, 1, true, false},
                     // K = 360 and 300: two K blocks of the packed weights.
                     ConvCase{2, 40, 9, 13, 70, 3, 3, 1, 1, 1, true, true},
                     ConvCase{1, 300, 5, 6, 20, 1, 1, 1, 0, 1, false, true},
                     // O > MC (144): row blocks of the packed weights.
                     ConvCase{1, 8, 6, 6, 150, 3, 3, 1, 1, 1, true, false},
                     // 1x1 with stride: the gather, not the plain GEMM.
                     ConvCase{2, 6, 9, 9, 5, 1, 1, 2, 0, 1, true, false}}) {
    int64_t OH = (c.H + 2 * c.pad - c.dilation * (c.KH - 1) - 1) / c.stride + 1;
    int64_t OW = (c.W + 2 * c.pad - c.dilation * (c.KW - 1) - 1) / c.stride + 1;
    auto in = randomVector(c.N * c.C * c.H * c.W, rng);
    auto w = randomVector(c.O * c.C * c.KH * c.KW, rng);
    auto b = randomVector(c.O, rng);
    std::vector<float> out(c.N * c.O * OH * OW, NAN);
    nn_rt_epilogue ep = {};
    if (c.bias)
      ep.addends[0] = {b.data(), 0, 1, 0};
    ep.activation = c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE;
    nn_rt_conv2d_nchw(c.N, c.C, c.H, c.W, in.data(), c.O, c.KH, c.KW, w.data(),
                      c.stride, c.stride, c.pad, c.pad, c.dilation, c.dilation,
                      OH, OW, out.data(), &ep);
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

/// The reference of nn_rt_epilogue's activation, in double.
double activate(const nn_rt_epilogue &ep, double v) {
  switch (ep.activation) {
  case NN_RT_ACT_RELU:
    return std::max(v, 0.0);
  case NN_RT_ACT_CLAMP:
    return std::min(std::max(v, double(ep.min)), double(ep.max));
  case NN_RT_ACT_LEAKY_RELU:
    return v > 0 ? v : v * ep.slope;
  default:
    return v;
  }
}

/// Every activation, and addends that are contiguous, broadcast along rows or
/// columns, and strided (the vector store's scalar fallback), on shapes with
/// full and partial register tiles.
TEST_P(KernelsTest, SgemmEpilogueMatchesLoops) {
  const int64_t M = 29, N = 45, K = 70;
  auto A = randomVector(M * K, rng), B = randomVector(K * N, rng);
  // Residual [M, N] with row stride N + 3 (a view of a wider buffer), a
  // column stride of 2 for the strided case.
  auto residual = randomVector(M * (2 * N + 3), rng);
  auto rowVector = randomVector(M, rng), colVector = randomVector(N, rng);
  struct Case {
    nn_rt_addend a0, a1;
    int32_t activation;
  };
  const float *r = residual.data(), *rv = rowVector.data(),
              *cv = colVector.data();
  for (Case c : {Case{{cv, 0, 0, 1}, {r, 0, N + 3, 1}, NN_RT_ACT_RELU},
                 Case{{rv, 0, 1, 0}, {r, 0, 2 * N + 3, 2}, NN_RT_ACT_CLAMP},
                 Case{{r, 0, N + 3, 1}, {}, NN_RT_ACT_LEAKY_RELU},
                 Case{{}, {rv, 0, 1, 0}, NN_RT_ACT_CLAMP},
                 Case{{}, {}, NN_RT_ACT_LEAKY_RELU}}) {
    SCOPED_TRACE(::testing::Message() << "activation " << c.activation
                                      << " strides " << c.a0.col_stride << ","
                                      << c.a1.col_stride);
    nn_rt_epilogue ep = {};
    ep.addends[0] = c.a0;
    ep.addends[1] = c.a1;
    ep.activation = c.activation;
    ep.min = -0.5f;
    ep.max = 0.75f;
    ep.slope = 0.125f;
    std::vector<float> C(M * N, NAN);
    nn_rt_sgemm(M, N, K, A.data(), K, 1, B.data(), N, 1, C.data(), N, 0, &ep);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += A[m * K + k] * B[k * N + n];
        for (const nn_rt_addend &a : ep.addends)
          if (a.data)
            acc += a.data[m * a.row_stride + n * a.col_stride];
        acc = activate(ep, acc);
        ASSERT_NEAR(C[m * N + n], acc, 1e-4 * (1 + std::abs(acc)))
            << "at " << m << "," << n;
      }
  }
}

/// NaN reaches the output through relu and clamp (as torch's do).
TEST_P(KernelsTest, EpilogueKeepsNaN) {
  const int64_t M = 6, N = 16, K = 1; // one full register tile
  std::vector<float> A(M * K, 1.f), B(K * N, 1.f), C(M * N);
  B[3] = NAN;
  for (int32_t act : {NN_RT_ACT_RELU, NN_RT_ACT_CLAMP, NN_RT_ACT_LEAKY_RELU}) {
    nn_rt_epilogue ep = {};
    ep.activation = act;
    ep.min = 0.f;
    ep.max = 6.f;
    nn_rt_sgemm(M, N, K, A.data(), K, 1, B.data(), N, 1, C.data(), N, 0, &ep);
    EXPECT_TRUE(std::isnan(C[3])) << "activation " << act;
    EXPECT_EQ(C[4], 1.f) << "activation " << act;
  }
}

/// A convolution's bias (per row) and a residual of the output's shape
/// (per image), with clamp, on a stride-2 window whose pixel count is not a
/// multiple of the register tile.
TEST_P(KernelsTest, Conv2dEpilogueMatchesLoops) {
  const int64_t N = 3, C = 5, H = 11, W = 9, O = 13, KH = 3, KW = 3, S = 2,
                P = 1;
  const int64_t OH = (H + 2 * P - KH) / S + 1, OW = (W + 2 * P - KW) / S + 1;
  auto in = randomVector(N * C * H * W, rng);
  auto w = randomVector(O * C * KH * KW, rng);
  auto b = randomVector(O, rng);
  auto res = randomVector(N * O * OH * OW, rng);
  nn_rt_epilogue ep = {};
  ep.addends[0] = {b.data(), 0, 1, 0};
  ep.addends[1] = {res.data(), O * OH * OW, OH * OW, 1};
  ep.activation = NN_RT_ACT_CLAMP;
  ep.min = -1.f;
  ep.max = 1.f;
  std::vector<float> out(N * O * OH * OW, NAN);
  nn_rt_conv2d_nchw(N, C, H, W, in.data(), O, KH, KW, w.data(), S, S, P, P, 1,
                    1, OH, OW, out.data(), &ep);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t x = 0; x < OW; ++x) {
          double acc = b[o] + res[((n * O + o) * OH + y) * OW + x];
          for (int64_t ch = 0; ch < C; ++ch)
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t iy = y * S - P + ky, ix = x * S - P + kx;
                if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                  acc += in[((n * C + ch) * H + iy) * W + ix] *
                         w[((o * C + ch) * KH + ky) * KW + kx];
              }
          acc = activate(ep, acc);
          ASSERT_NEAR(out[((n * O + o) * OH + y) * OW + x], acc,
                      1e-4 * (1 + std::abs(acc)))
              << "image " << n << " channel " << o << " at " << y << "," << x;
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
