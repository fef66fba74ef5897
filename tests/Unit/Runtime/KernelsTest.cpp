//===- KernelsTest.cpp - nn_kernels against plain loops -------------------===//
//
// The micro-kernels (nn/Runtime/Kernels.h) on shapes that are not multiples
// of the register tile, transposed operands, every epilogue, convolution
// windows with stride, padding and dilation, on 1 and 3 threads.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/Kernels.h"
#include "ConvReference.h"
// The vector exp of attention's softmax (runtime/lib on the include path).
#include "Kernels/KernelsInternal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <strings.h>

namespace {

using nn_test::activate;
using nn_test::ConvWindow;
using nn_test::describeEpilogue;
using nn_test::expectConvNear;
using nn_test::randomVector;
using nn_test::referenceConv;
using nn_test::testEpilogue;

class KernelsTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { nn_rt_set_num_threads(GetParam()); }
  void TearDown() override { nn_rt_set_num_threads(1); }
  std::mt19937 rng{42};
};

/// The level NN_MAX_ISA or NN_TEST_DETECTED_ISA names, any case; false
/// for another name.
bool isaNamed(const char *name, nn_rt::IsaLevel &level) {
  const std::pair<const char *, nn_rt::IsaLevel> names[] = {
      {"scalar", nn_rt::IsaLevel::scalar},
      {"avx2", nn_rt::IsaLevel::avx2},
      {"avx512", nn_rt::IsaLevel::avx512}};
  for (const auto &[n, l] : names)
    if (strcasecmp(name, n) == 0) {
      level = l;
      return true;
    }
  return false;
}

/// The ISA dispatch detects before any cap: NN_TEST_DETECTED_ISA where the
/// run sets it (the emulated AVX-512 build's is avx512 on any CPU), else the
/// one this CPU and OS offer.
nn_rt::IsaLevel detectedIsa() {
  nn_rt::IsaLevel level;
  const char *name = std::getenv("NN_TEST_DETECTED_ISA");
  if (name && isaNamed(name, level))
    return level;
  if (name)
    ADD_FAILURE() << "NN_TEST_DETECTED_ISA=" << name << " names no ISA";
  if (__builtin_cpu_supports("avx512f"))
    return nn_rt::IsaLevel::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return nn_rt::IsaLevel::avx2;
  return nn_rt::IsaLevel::scalar;
}

/// The kernels run the ISA this test run is for: the detected one (see
/// detectedIsa), lowered to a valid NN_MAX_ISA. tests/Unit/Runtime's
/// CMakeLists.txt runs these tests uncapped, capped at scalar and on the
/// emulated AVX-512 build, so none of those runs can pass by quietly
/// testing another ISA. The register tile and the AVX2 row functions
/// follow that ISA.
TEST(KernelsIsaTest, DispatchesToTheIsaOfTheRun) {
  nn_rt::IsaLevel expected = detectedIsa(), cap;
  const char *capName = std::getenv("NN_MAX_ISA");
  if (capName && isaNamed(capName, cap))
    expected = std::min(expected, cap);
  const nn_rt::IsaLevel level = nn_rt::isaLevel();
  EXPECT_EQ(static_cast<int>(level), static_cast<int>(expected))
      << "0 scalar, 1 avx2, 2 avx512 (run the emulated AVX-512 build with "
         "NN_TEST_DETECTED_ISA=avx512)";
  int64_t mr, nr;
  nn_rt::registerTile(mr, nr);
  const int64_t tiles[][2] = {{1, 1}, {6, 16}, {12, 32}};
  EXPECT_EQ(mr, tiles[static_cast<int>(level)][0]);
  EXPECT_EQ(nr, tiles[static_cast<int>(level)][1]);
  EXPECT_EQ(nn_rt::hasAvx2Fma(), level != nn_rt::IsaLevel::scalar);
}

struct GemmCase {
  int64_t M, N, K;
  bool transposeB, accumulate, rowBias, relu;
  /// A stored as Aᵀ ([K, M]: a weight gradient's dYᵀ), read through strides.
  bool transposeA = false;
};

TEST_P(KernelsTest, SgemmMatchesLoops) {
  for (GemmCase c : {GemmCase{1, 1, 1, false, false, false, false},
                     GemmCase{7, 13, 5, true, false, false, true},
                     GemmCase{64, 256, 784, true, false, false, true},
                     GemmCase{37, 53, 300, false, true, false, false},
                     GemmCase{100, 70, 600, false, false, true, true},
                     GemmCase{6, 16, 0, false, true, false, true},
                     GemmCase{150, 33, 257, true, true, true, false},
                     GemmCase{37, 53, 300, false, false, false, false, true},
                     GemmCase{150, 33, 257, true, true, true, false, true},
                     // K blocks: two of AVX-512's 1024, three of AVX2's 512.
                     GemmCase{40, 70, 1100, false, true, true, true},
                     GemmCase{30, 45, 1300, true, false, false, false, true}}) {
    SCOPED_TRACE(::testing::Message() << c.M << "x" << c.N << "x" << c.K
                                      << (c.transposeA ? " Aᵀ" : ""));
    auto A = randomVector(c.M * c.K, rng), B = randomVector(c.K * c.N, rng);
    auto a = [&](int64_t m, int64_t k) {
      return c.transposeA ? A[k * c.M + m] : A[m * c.K + k];
    };
    auto bias = randomVector(c.rowBias ? c.M : c.N, rng);
    auto C = randomVector(c.M * c.N, rng), want = C;
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t n = 0; n < c.N; ++n) {
        double acc = c.accumulate ? want[m * c.N + n] : 0.0;
        for (int64_t k = 0; k < c.K; ++k)
          acc += a(m, k) * (c.transposeB ? B[n * c.K + k] : B[k * c.N + n]);
        acc += bias[c.rowBias ? m : n];
        want[m * c.N + n] = c.relu ? std::max(acc, 0.0) : acc;
      }
    nn_rt_epilogue ep = {};
    ep.addends[0] = {bias.data(), 0, c.rowBias ? 1 : 0, c.rowBias ? 0 : 1};
    ep.activation = c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE;
    nn_rt_sgemm(c.M, c.N, c.K, A.data(), c.transposeA ? 1 : c.K,
                c.transposeA ? c.M : 1, B.data(), c.transposeB ? 1 : c.N,
                c.transposeB ? c.K : 1, C.data(), c.N, c.accumulate, &ep);
    for (int64_t i = 0; i < c.M * c.N; ++i)
      ASSERT_NEAR(C[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "at " << i;
  }
}

struct ConvCase {
  int64_t N, C, H, W, O, KH, KW, stride, pad, dilation;
  bool bias, relu;
};

/// A case's output size, random input, weight and bias, and its epilogue
/// (the bias per output channel, then relu when asked).
struct ConvData {
  ConvData(const ConvCase &c, std::mt19937 &rng)
      : OH((c.H + 2 * c.pad - c.dilation * (c.KH - 1) - 1) / c.stride + 1),
        OW((c.W + 2 * c.pad - c.dilation * (c.KW - 1) - 1) / c.stride + 1),
        in(randomVector(c.N * c.C * c.H * c.W, rng)),
        w(randomVector(c.O * c.C * c.KH * c.KW, rng)),
        b(randomVector(c.O, rng)) {
    if (c.bias)
      ep.addends[0] = {b.data(), 0, 1, 0};
    ep.activation = c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE;
  }
  ConvData(const ConvData &) = delete; // ep points into b

  int64_t OH, OW;
  std::vector<float> in, w, b;
  nn_rt_epilogue ep = {};
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
                     ConvCase{2, 6, 9, 9, 5, 1, 1, 2, 0, 1, true, false},
                     // One image of 7x7 outputs with enough work for the
                     // threads: they share its 100 output channels in
                     // whole register tiles (its 49 pixels are only two
                     // column tiles).
                     ConvCase{1, 64, 7, 7, 100, 3, 3, 1, 1, 1, true, true}}) {
    ConvData d(c, rng);
    const int64_t OH = d.OH, OW = d.OW;
    const auto &in = d.in, &w = d.w;
    const nn_rt_epilogue &ep = d.ep;
    std::vector<float> out(c.N * c.O * OH * OW, NAN);
    nn_rt_conv2d_nchw(c.N, c.C, c.H, c.W, in.data(), c.O, c.KH, c.KW, w.data(),
                      c.stride, c.stride, c.pad, c.pad, c.dilation, c.dilation,
                      OH, OW, out.data(), &ep);
    const ConvWindow window{c.N,   c.C,   c.H,      c.W,        c.O,
                            c.KH,  c.KW,  c.stride, c.stride,   c.pad,
                            c.pad, c.pad, c.pad,    c.dilation, c.dilation};
    expectConvNear(out, referenceConv(window, 1, in, w, ep), window);
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
  const float *r = residual.data(), *rv = rowVector.data(),
              *cv = colVector.data();
  for (const nn_rt_epilogue &ep :
       {testEpilogue({cv, 0, 0, 1}, {r, 0, N + 3, 1}, NN_RT_ACT_RELU),
        testEpilogue({rv, 0, 1, 0}, {r, 0, 2 * N + 3, 2}, NN_RT_ACT_CLAMP),
        testEpilogue({r, 0, N + 3, 1}, {}, NN_RT_ACT_LEAKY_RELU),
        testEpilogue({}, {rv, 0, 1, 0}, NN_RT_ACT_CLAMP),
        testEpilogue({}, {}, NN_RT_ACT_LEAKY_RELU)}) {
    SCOPED_TRACE(describeEpilogue(ep));
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
  const ConvWindow window{N, C, H, W, O, KH, KW, S, S, P, P, P, P, 1, 1};
  expectConvNear(out, referenceConv(window, 1, in, w, ep), window);
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

/// A strided view over `data`: batch strides (leading, padded to
/// NN_RT_MAX_BATCH_DIMS), then the row and column strides.
nn_rt_matrix view(float *data, std::vector<int64_t> batchStrides, int64_t row,
                  int64_t col) {
  nn_rt_matrix m = {};
  m.data = data;
  size_t pad = NN_RT_MAX_BATCH_DIMS - batchStrides.size();
  for (size_t d = 0; d < batchStrides.size(); ++d)
    m.batch_strides[pad + d] = batchStrides[d];
  m.row_stride = row, m.col_stride = col;
  return m;
}

/// Element (b, r, c) of `m` for batch index (b0, b1) of two batch dims.
float at(const nn_rt_matrix &m, int64_t b0, int64_t b1, int64_t r, int64_t c) {
  return m.data[b0 * m.batch_strides[NN_RT_MAX_BATCH_DIMS - 2] +
                b1 * m.batch_strides[NN_RT_MAX_BATCH_DIMS - 1] +
                r * m.row_stride + c * m.col_stride];
}

/// Two batch dims [2, 3]: A broadcast along the first (stride 0), B a
/// transposed head-split view (the layout of kᵀ in attention), C with a
/// padded row stride; an addend per image (its image stride), accumulate,
/// relu. Shapes off the register tile, and large enough to be split.
TEST_P(KernelsTest, SgemmBatchedMatchesLoops) {
  // The second is above the kernels' threshold for splitting work.
  for (auto [M, N, K] : {std::array<int64_t, 3>{37, 50, 129},
                         std::array<int64_t, 3>{130, 150, 300}}) {
    SCOPED_TRACE(::testing::Message() << M << "x" << N << "x" << K);
    const int64_t B0 = 2, B1 = 3, H = B1;
    const int64_t batch[NN_RT_MAX_BATCH_DIMS] = {1, 1, B0, B1};
    auto a = randomVector(B1 * M * K, rng);
    // B[b0, b1][k, n] = kv[n, b0, b1, k]: a [N, B0, B1, K] buffer.
    auto bt = randomVector(N * B0 * H * K, rng);
    auto res = randomVector(B0 * B1 * M * N, rng);
    const int64_t ldc = N + 5;
    auto c = randomVector(B0 * B1 * M * ldc, rng), c0 = c;
    nn_rt_matrix A = view(a.data(), {0, M * K}, K, 1);
    nn_rt_matrix Bm = view(bt.data(), {H * K, K}, 1, B0 * H * K);
    nn_rt_matrix C = view(c.data(), {B1 * M * ldc, M * ldc}, ldc, 1);
    nn_rt_epilogue ep = {};
    ep.addends[0] = {res.data(), M * N, N, 1};
    ep.activation = NN_RT_ACT_RELU;
    nn_rt_sgemm_batched(batch, M, N, K, &A, &Bm, &C, 1, &ep);
    for (int64_t b0 = 0; b0 < B0; ++b0)
      for (int64_t b1 = 0; b1 < B1; ++b1)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            int64_t image = b0 * B1 + b1;
            double want = c0[image * M * ldc + m * ldc + n];
            for (int64_t k = 0; k < K; ++k)
              want += double(at(A, b0, b1, m, k)) * at(Bm, b0, b1, k, n);
            want = std::max(want + res[(image * M + m) * N + n], 0.0);
            ASSERT_NEAR(c[image * M * ldc + m * ldc + n], want,
                        1e-4 * (1 + std::abs(want)))
                << "image " << image << " at " << m << "," << n;
          }
  }
}

struct AttentionCase {
  int64_t B0, B1, L, S, E, Ev;
  enum { none, shared, perBatch, perQueryRow } mask;
  bool causal;
};

/// softmax(q·kᵀ·scale + mask)·v in double, one row at a time, for views
/// laid out as attention's head split: q, k, v are [seq, B0, B1, E] buffers
/// seen as [B0, B1, seq, E] (no copy), the output written through the
/// strides of the head merge ([L, B0, B1, Ev]).
TEST_P(KernelsTest, AttentionMatchesLoops) {
  using C = AttentionCase;
  for (C c : {C{2, 3, 17, 23, 8, 5, C::none, false},
              C{1, 4, 128, 128, 64, 64, C::none, false},
              C{2, 4, 256, 256, 64, 64, C::shared, false}, // split
              C{2, 2, 40, 300, 16, 12, C::shared, false},
              C{1, 2, 50, 31, 7, 9, C::perBatch, false},
              C{2, 1, 9, 13, 6, 6, C::perQueryRow, false},
              C{1, 3, 61, 61, 16, 16, C::none, true},
              C{1, 2, 20, 270, 8, 8, C::none, true},
              C{2, 2, 30, 20, 8, 4, C::none, true}}) {
    SCOPED_TRACE(::testing::Message()
                 << c.B0 << "x" << c.B1 << " L " << c.L << " S " << c.S << " E "
                 << c.E << " Ev " << c.Ev << " mask " << c.mask << " causal "
                 << c.causal);
    const int64_t nb = c.B0 * c.B1;
    const int64_t batch[NN_RT_MAX_BATCH_DIMS] = {1, 1, c.B0, c.B1};
    auto qd = randomVector(c.L * nb * c.E, rng);
    auto kd = randomVector(c.S * nb * c.E, rng);
    auto vd = randomVector(c.S * nb * c.Ev, rng);
    for (float &x : qd)
      x *= 3.f; // scores of a few units: a softmax that is not flat
    auto headSplit = [&](std::vector<float> &d, int64_t width) {
      return view(d.data(), {c.B1 * width, width}, nb * width, 1);
    };
    nn_rt_matrix q = headSplit(qd, c.E), k = headSplit(kd, c.E),
                 v = headSplit(vd, c.Ev);
    std::vector<float> md, od(c.L * nb * c.Ev, NAN);
    nn_rt_matrix mask = {}, out = headSplit(od, c.Ev);
    switch (c.mask) {
    case C::none:
      break;
    case C::shared: // [L, S]
      md = randomVector(c.L * c.S, rng);
      mask = view(md.data(), {0, 0}, c.S, 1);
      break;
    case C::perBatch: // [B0, B1, L, S] with -inf holes
      md = randomVector(nb * c.L * c.S, rng);
      for (size_t i = 0; i < md.size(); i += 3)
        md[i] = -INFINITY;
      mask = view(md.data(), {c.B1 * c.L * c.S, c.L * c.S}, c.S, 1);
      break;
    case C::perQueryRow: // [B0, 1, L, 1]: a key padding mask's transpose
      md = randomVector(c.B0 * c.L, rng);
      mask = view(md.data(), {c.L, 0}, 1, 0);
      break;
    }
    float scale = 1.f / std::sqrt(float(c.E));
    nn_rt_attention(batch, c.L, c.S, c.E, c.Ev, &q, &k, &v,
                    c.mask == C::none ? nullptr : &mask, &out, scale, c.causal);
    for (int64_t b0 = 0; b0 < c.B0; ++b0)
      for (int64_t b1 = 0; b1 < c.B1; ++b1)
        for (int64_t l = 0; l < c.L; ++l) {
          std::vector<double> p(c.S);
          double best = -INFINITY, sum = 0;
          for (int64_t s = 0; s < c.S; ++s) {
            double x = 0;
            for (int64_t e = 0; e < c.E; ++e)
              x += double(at(q, b0, b1, l, e)) * at(k, b0, b1, s, e);
            x *= scale;
            if (c.mask != C::none)
              x += at(mask, b0, b1, l, s);
            if (c.causal && s > l)
              x = -INFINITY;
            p[s] = x;
            best = std::max(best, x);
          }
          for (double &x : p)
            sum += x = std::exp(x - best);
          for (int64_t e = 0; e < c.Ev; ++e) {
            double want = 0;
            for (int64_t s = 0; s < c.S; ++s)
              want += p[s] / sum * at(v, b0, b1, s, e);
            ASSERT_NEAR(at(out, b0, b1, l, e), want,
                        1e-5 * (1 + std::abs(want)))
                << "batch " << b0 << "," << b1 << " at " << l << "," << e;
          }
        }
  }
}

/// A query row whose keys are all masked gives NaN (as PyTorch's math
/// kernel); one whose first key block is all masked but a later one is not
/// stays finite (the online softmax must not poison it).
TEST_P(KernelsTest, AttentionFullyMaskedRows) {
  const int64_t L = 3, S = 300, E = 4;
  const int64_t batch[NN_RT_MAX_BATCH_DIMS] = {1, 1, 1, 1};
  auto qd = randomVector(L * E, rng), kd = randomVector(S * E, rng),
       vd = randomVector(S * E, rng);
  std::vector<float> md(L * S, 0.f), od(L * E);
  for (int64_t s = 0; s < S; ++s) {
    md[0 * S + s] = -INFINITY;                 // row 0: nothing
    md[1 * S + s] = s < 290 ? -INFINITY : 0.f; // row 1: the last 10 keys
  }
  nn_rt_matrix q = view(qd.data(), {}, E, 1), k = view(kd.data(), {}, E, 1),
               v = view(vd.data(), {}, E, 1), m = view(md.data(), {}, S, 1),
               o = view(od.data(), {}, E, 1);
  nn_rt_attention(batch, L, S, E, E, &q, &k, &v, &m, &o, 0.5f, 0);
  for (int64_t e = 0; e < E; ++e) {
    EXPECT_TRUE(std::isnan(od[e])) << e;
    EXPECT_TRUE(std::isfinite(od[E + e])) << e;
    EXPECT_TRUE(std::isfinite(od[2 * E + e])) << e;
  }
}

/// The distance in units in the last place between two floats of one sign
/// (or zero): the count of floats between them.
int64_t ulpDistance(float a, float b) {
  auto ordered = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? int64_t(INT32_MIN) - i : int64_t(i);
  };
  return std::abs(ordered(a) - ordered(b));
}

/// attention's vector exp against the correctly rounded exp (double exp
/// rounded to float) on every 64th float from -110 to 100 (results from 0
/// through the denormals to overflow), and on the special values.
TEST(KernelsExpTest, VectorExpWithinOneUlp) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    GTEST_SKIP() << "no AVX2 + FMA";
  std::vector<float> x;
  for (float f = -110.f; f < 100.f;) {
    x.push_back(f);
    int32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    bits += f < 0 ? -64 : 64;
    if (f < 0 && bits < 0 && (bits & 0x7fffffff) < 64)
      bits = 0; // step from -tiny over to +0
    std::memcpy(&f, &bits, sizeof bits);
  }
  std::vector<float> y(x.size());
  nn_rt::avx2::expRow(x.data(), y.data(), x.size());
  int64_t worst = 0;
  float worstAt = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float want = static_cast<float>(std::exp(double(x[i])));
    int64_t d = ulpDistance(y[i], want);
    if (d > worst)
      worst = d, worstAt = x[i];
  }
  EXPECT_LE(worst, 1) << "at x = " << worstAt << " of " << x.size();

  float special[] = {NAN,    INFINITY, -INFINITY, 0.f,     -0.f,   88.72f,
                     88.73f, -87.5f,   -103.9f,   -104.5f, 1e-30f, 7.f};
  float out[std::size(special)];
  nn_rt::avx2::expRow(special, out, std::size(special)); // a masked tail
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], INFINITY);
  EXPECT_EQ(out[2], 0.f);
  EXPECT_EQ(out[3], 1.f);
  EXPECT_EQ(out[4], 1.f);
  for (size_t i = 5; i < std::size(special); ++i)
    EXPECT_LE(ulpDistance(out[i], float(std::exp(double(special[i])))), 1)
        << "exp(" << special[i] << ") = " << out[i];
}

/// A 64-byte aligned buffer of `bytes` (the packed operands' alignment).
std::unique_ptr<float, decltype(&free)> alignedBuffer(int64_t bytes) {
  size_t rounded = (static_cast<size_t>(bytes) + 63) / 64 * 64;
  return {static_cast<float *>(aligned_alloc(64, rounded ? rounded : 64)),
          &free};
}

/// The packed-B GEMM gives the very bits of nn_rt_sgemm: plain and
/// transposed B, partial tiles, several K blocks, accumulation, epilogues,
/// and shapes above the threading threshold split along M and along N.
TEST_P(KernelsTest, SgemmPackedBIsBitIdentical) {
  for (GemmCase c : {GemmCase{1, 1, 1, false, false, false, false},
                     GemmCase{7, 13, 5, true, false, false, true},
                     GemmCase{64, 256, 784, true, false, false, true},
                     GemmCase{37, 53, 300, false, true, false, false},
                     GemmCase{150, 33, 257, true, true, true, false},
                     GemmCase{300, 200, 600, true, false, true, true},
                     GemmCase{100, 600, 600, false, false, false, true},
                     // Two K blocks and two column panels of AVX-512's
                     // 1024 x 1024 (three and one of AVX2's 512 x 2048).
                     GemmCase{50, 1100, 1100, false, false, true, true}}) {
    SCOPED_TRACE(::testing::Message() << c.M << "x" << c.N << "x" << c.K);
    auto A = randomVector(c.M * c.K, rng), B = randomVector(c.K * c.N, rng);
    auto bias = randomVector(c.rowBias ? c.M : c.N, rng);
    auto C = randomVector(c.M * c.N, rng), packedC = C;
    nn_rt_epilogue ep = {};
    ep.addends[0] = {bias.data(), 0, c.rowBias ? 1 : 0, c.rowBias ? 0 : 1};
    ep.activation = c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE;
    int64_t rsB = c.transposeB ? 1 : c.N, csB = c.transposeB ? c.K : 1;
    nn_rt_sgemm(c.M, c.N, c.K, A.data(), c.transposeA ? 1 : c.K,
                c.transposeA ? c.M : 1, B.data(), rsB, csB, C.data(), c.N,
                c.accumulate, &ep);
    int64_t bytes = nn_rt_sgemm_pack_b_size(c.K, c.N);
    ASSERT_GE(bytes, static_cast<int64_t>(c.K * c.N * sizeof(float)));
    auto packed = alignedBuffer(bytes);
    nn_rt_sgemm_pack_b(c.K, c.N, B.data(), rsB, csB, packed.get());
    nn_rt_sgemm_packed_b(c.M, c.N, c.K, A.data(), c.K, 1, packed.get(),
                         packedC.data(), c.N, c.accumulate, &ep);
    ASSERT_EQ(0, memcmp(C.data(), packedC.data(), C.size() * sizeof(float)));
  }
}

/// B in windows of rows of one matrix (a stride-1 convolution's weight
/// gradient) gives the bits of the same GEMM on those windows copied side by
/// side: panels inside a window (64 columns), across windows (5 and 40), B
/// read through padded rows and transposed, the shared packed B of a tall
/// GEMM on two threads, two K blocks, accumulation and an epilogue.
TEST_P(KernelsTest, SgemmBWindowsIsBitIdenticalToTheCopiedWindows) {
  struct Case {
    int64_t M, K, width, windows, rows, rsB, csB;
  };
  for (Case c : {Case{64, 300, 64, 9, 338, 64, 1}, Case{7, 33, 5, 7, 50, 8, 1},
                 Case{300, 1100, 40, 3, 1200, 40, 1},
                 Case{13, 90, 40, 4, 100, 1, 100}}) {
    SCOPED_TRACE(::testing::Message()
                 << c.M << "x" << c.width << "x" << c.windows << "x" << c.K);
    const int64_t N = c.width * c.windows;
    auto base =
        randomVector((c.rows - 1) * c.rsB + (c.width - 1) * c.csB + 1, rng);
    std::vector<int64_t> offsets;
    for (int64_t w = 0; w < c.windows; ++w)
      offsets.push_back((w * 7 + w * w) % (c.rows - c.K + 1));
    std::vector<float> copied(c.K * N);
    for (int64_t k = 0; k < c.K; ++k)
      for (int64_t n = 0; n < N; ++n) {
        int64_t w = n / c.width, j = n % c.width;
        copied[k * N + n] = base[(k + offsets[w]) * c.rsB + j * c.csB];
      }
    auto A = randomVector(c.M * c.K, rng), bias = randomVector(N, rng);
    auto C = randomVector(c.M * N, rng), windowC = C;
    nn_rt_epilogue ep = {};
    ep.addends[0] = {bias.data(), 0, 0, 1};
    ep.activation = NN_RT_ACT_RELU;
    nn_rt_sgemm(c.M, N, c.K, A.data(), c.K, 1, copied.data(), N, 1, C.data(), N,
                1, &ep);
    nn_rt_sgemm_b_windows(c.M, N, c.K, A.data(), c.K, 1, base.data(), c.rsB,
                          c.csB, c.windows, offsets.data(), windowC.data(), N,
                          1, &ep);
    ASSERT_EQ(0, memcmp(C.data(), windowC.data(), C.size() * sizeof(float)));
  }
}

/// A GEMM of at most one row block reads A in place; a taller one, or a
/// column-major A, packs it. Either way every row of C is the same FMA
/// sequence: the first 64 rows of a 150-row GEMM, and the 64 rows with A
/// stored transposed, give the bits of the 64-row GEMM (partial row and
/// column tiles, two K blocks, accumulation and an epilogue included).
TEST_P(KernelsTest, SgemmRowsDoNotDependOnPackingA) {
  const int64_t M = 64, tallM = 150, N = 45, K = 600;
  auto A = randomVector(tallM * K, rng), B = randomVector(K * N, rng);
  auto bias = randomVector(N, rng), C0 = randomVector(tallM * N, rng);
  std::vector<float> At(M * K); // A's first M rows, column-major
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      At[k * M + m] = A[m * K + k];
  nn_rt_epilogue ep = {};
  ep.addends[0] = {bias.data(), 0, 0, 1};
  ep.activation = NN_RT_ACT_RELU;
  std::vector<float> small(C0.begin(), C0.begin() + M * N), tall = C0,
                                                            transposed = small;
  nn_rt_sgemm(M, N, K, A.data(), K, 1, B.data(), N, 1, small.data(), N, 1, &ep);
  nn_rt_sgemm(tallM, N, K, A.data(), K, 1, B.data(), N, 1, tall.data(), N, 1,
              &ep);
  nn_rt_sgemm(M, N, K, At.data(), 1, M, B.data(), N, 1, transposed.data(), N, 1,
              &ep);
  ASSERT_EQ(0, memcmp(small.data(), tall.data(), small.size() * sizeof(float)));
  ASSERT_EQ(
      0, memcmp(small.data(), transposed.data(), small.size() * sizeof(float)));
}

/// A partial column tile is stored through masks: its columns get the bits
/// of the same columns in a full tile (addends and accumulation included),
/// and nothing right of them is written (C is a view of a wider buffer).
/// The full tile is the ISA's (16 columns on AVX2, 32 on AVX-512), so every
/// partial width of either vector is checked.
TEST_P(KernelsTest, SgemmPartialColumnTilesMatchFullTiles) {
  int64_t mr, nr;
  nn_rt::registerTile(mr, nr);
  const int64_t M = 13, K = 300, full = std::max<int64_t>(16, nr), pad = 5;
  auto A = randomVector(M * K, rng), B = randomVector(K * full, rng);
  auto bias = randomVector(full, rng), residual = randomVector(M * full, rng);
  auto C0 = randomVector(M * full, rng);
  for (int32_t act : {NN_RT_ACT_NONE, NN_RT_ACT_RELU, NN_RT_ACT_LEAKY_RELU}) {
    nn_rt_epilogue ep = {};
    ep.addends[0] = {bias.data(), 0, 0, 1};
    ep.addends[1] = {residual.data(), 0, full, 1};
    ep.activation = act;
    ep.slope = 0.25f;
    std::vector<float> want = C0;
    nn_rt_sgemm(M, full, K, A.data(), K, 1, B.data(), full, 1, want.data(),
                full, 1, &ep);
    for (int64_t N : {1, 7, 8, 9, 10, 15, 16, 17, 24, 31}) {
      if (N >= full)
        continue;
      SCOPED_TRACE(::testing::Message()
                   << "N = " << N << ", activation " << act);
      const int64_t rsC = N + pad;
      std::vector<float> C(M * rsC, NAN);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n)
          C[m * rsC + n] = C0[m * full + n];
      nn_rt_sgemm(M, N, K, A.data(), K, 1, B.data(), full, 1, C.data(), rsC, 1,
                  &ep);
      for (int64_t m = 0; m < M; ++m) {
        ASSERT_EQ(0, memcmp(&C[m * rsC], &want[m * full], N * sizeof(float)))
            << "row " << m;
        for (int64_t n = N; n < rsC; ++n)
          ASSERT_TRUE(std::isnan(C[m * rsC + n])) << "wrote " << m << "," << n;
      }
    }
  }
}

/// A partial row tile runs a kernel of its own height: each of its rows gets
/// the bits of the same row in a taller GEMM (the vector epilogue, the scalar
/// one of a strided addend, and accumulation alike), and the rows below it
/// are never written (C is the top of a taller buffer). Every height from 1
/// to two tiles is checked, on the ISA's tile (6 rows on AVX2, 12 on
/// AVX-512).
TEST_P(KernelsTest, SgemmPartialRowTilesMatchFullTiles) {
  int64_t mr, nr;
  nn_rt::registerTile(mr, nr);
  const int64_t tall = 2 * mr + 1, N = nr + 7, K = 300;
  auto A = randomVector(tall * K, rng), B = randomVector(K * N, rng);
  auto bias = randomVector(N, rng), residual = randomVector(tall * N, rng);
  auto C0 = randomVector(tall * N, rng);
  for (bool strided : {false, true}) {
    nn_rt_epilogue ep = {};
    ep.addends[0] = {bias.data(), 0, 0, 1};
    // A transposed residual (column stride `tall`) takes the scalar store.
    ep.addends[1] = strided ? nn_rt_addend{residual.data(), 0, 1, tall}
                            : nn_rt_addend{residual.data(), 0, N, 1};
    ep.activation = NN_RT_ACT_RELU;
    std::vector<float> want = C0;
    nn_rt_sgemm(tall, N, K, A.data(), K, 1, B.data(), N, 1, want.data(), N, 1,
                &ep);
    for (int64_t M = 1; M < tall; ++M) {
      SCOPED_TRACE(::testing::Message()
                   << "M = " << M << (strided ? ", strided addend" : ""));
      std::vector<float> C = C0;
      for (int64_t i = M * N; i < tall * N; ++i)
        C[i] = NAN;
      nn_rt_sgemm(M, N, K, A.data(), K, 1, B.data(), N, 1, C.data(), N, 1, &ep);
      ASSERT_EQ(0, memcmp(C.data(), want.data(), M * N * sizeof(float)));
      for (int64_t i = M * N; i < tall * N; ++i)
        ASSERT_TRUE(std::isnan(C[i])) << "wrote row " << i / N;
    }
  }
}

/// A weight packed on one thread count serves every other: the layout does
/// not depend on how the kernel splits the work.
TEST_P(KernelsTest, PackedBLayoutDoesNotDependOnThreads) {
  const int64_t M = 300, N = 200, K = 600;
  auto A = randomVector(M * K, rng), B = randomVector(K * N, rng);
  auto packed = alignedBuffer(nn_rt_sgemm_pack_b_size(K, N));
  nn_rt_set_num_threads(1);
  nn_rt_sgemm_pack_b(K, N, B.data(), 1, K, packed.get());
  std::vector<float> want(M * N), got(M * N);
  nn_rt_sgemm(M, N, K, A.data(), K, 1, B.data(), 1, K, want.data(), N, 0,
              nullptr);
  nn_rt_set_num_threads(GetParam());
  nn_rt_sgemm_packed_b(M, N, K, A.data(), K, 1, packed.get(), got.data(), N, 0,
                       nullptr);
  ASSERT_EQ(0, memcmp(want.data(), got.data(), want.size() * sizeof(float)));
}

/// The packed-weight convolution gives the very bits of nn_rt_conv2d_nchw,
/// through the direct kernel (whose layout the geometry picks) and the 1x1
/// plain-GEMM path, with several K and row blocks and the per-image and
/// per-pixel thread splits.
TEST_P(KernelsTest, Conv2dPackedWeightIsBitIdentical) {
  for (ConvCase c : {ConvCase{2, 5, 9, 11, 7, 3, 3, 1, 1, 1, true, false},
                     ConvCase{3, 4, 10, 8, 9, 3, 3, 2, 1, 1, false, true},
                     ConvCase{1, 3, 12, 12, 20, 3, 2, 1, 2, 2, true, true},
                     ConvCase{4, 16, 7, 7, 8, 1, 1, 1, 0, 1, true, false},
                     ConvCase{2, 40, 9, 13, 70, 3, 3, 1, 1, 1, true, true},
                     ConvCase{1, 8, 6, 6, 150, 3, 3, 1, 1, 1, true, false},
                     ConvCase{2, 64, 28, 28, 64, 3, 3, 1, 1, 1, true, true}}) {
    ConvData d(c, rng);
    const int64_t OH = d.OH, OW = d.OW;
    const auto &in = d.in, &w = d.w;
    const nn_rt_epilogue &ep = d.ep;
    std::vector<float> want(c.N * c.O * OH * OW, NAN), got = want;
    nn_rt_conv2d_nchw(c.N, c.C, c.H, c.W, in.data(), c.O, c.KH, c.KW, w.data(),
                      c.stride, c.stride, c.pad, c.pad, c.dilation, c.dilation,
                      OH, OW, want.data(), &ep);
    int64_t bytes = nn_rt_conv2d_pack_weight_size(
        c.C, c.H, c.W, c.O, c.KH, c.KW, c.stride, c.stride, c.pad, c.pad,
        c.dilation, c.dilation, OH, OW);
    ASSERT_GE(bytes, static_cast<int64_t>(w.size() * sizeof(float)));
    auto packed = alignedBuffer(bytes);
    nn_rt_conv2d_pack_weight(c.C, c.H, c.W, c.O, c.KH, c.KW, w.data(), c.stride,
                             c.stride, c.pad, c.pad, c.dilation, c.dilation, OH,
                             OW, packed.get());
    nn_rt_conv2d_nchw_packed(c.N, c.C, c.H, c.W, in.data(), c.O, c.KH, c.KW,
                             packed.get(), c.stride, c.stride, c.pad, c.pad,
                             c.dilation, c.dilation, OH, OW, got.data(), &ep);
    ASSERT_EQ(0, memcmp(want.data(), got.data(), want.size() * sizeof(float)))
        << c.N << "x" << c.C << "x" << c.H << "x" << c.W << " -> " << c.O;
  }
}

/// A context's slots: allocated on first ask, 64-byte aligned, kept (not
/// reallocated) when prepare asks again for no more, grown when asked for
/// more, freed with the context.
TEST(KernelsContextTest, SlotsAreAllocatedOnceAndFreedWithTheContext) {
  void **slots = nn_rt_context_create(2);
  ASSERT_NE(slots, nullptr);
  EXPECT_EQ(slots[0], nullptr);
  void *first = nn_rt_context_buffer(slots, 1, 100);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
  EXPECT_EQ(slots[1], first);
  EXPECT_EQ(nn_rt_context_buffer(slots, 1, 100), first);
  EXPECT_EQ(nn_rt_context_buffer(slots, 1, 64), first);
  // More than the slot holds: a new buffer (allocated before the old one
  // is freed, so never at the same address), written end to end.
  auto *grown =
      static_cast<unsigned char *>(nn_rt_context_buffer(slots, 1, 4096));
  ASSERT_NE(grown, nullptr);
  EXPECT_NE(static_cast<void *>(grown), first);
  EXPECT_EQ(slots[1], grown);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(grown) % 64, 0u);
  std::memset(grown, 0xab, 4096);
  EXPECT_EQ(nn_rt_context_buffer(slots, 1, 4096), grown);
  nn_rt_context_destroy(slots, 2);
  void **empty = nn_rt_context_create(0);
  EXPECT_NE(empty, nullptr);
  nn_rt_context_destroy(empty, 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, KernelsTest, ::testing::Values(1, 3));

/// Checks 9 elements of `C` (corners and middles) of GEMM case `c` with
/// bias `bias` against double-precision loops.
void spotCheckGemm(const GemmCase &c, const std::vector<float> &A,
                   const std::vector<float> &B, const std::vector<float> &C0,
                   const std::vector<float> &bias,
                   const std::vector<float> &C) {
  for (int64_t m : {int64_t(0), c.M / 2, c.M - 1})
    for (int64_t n : {int64_t(0), c.N / 3, c.N - 1}) {
      double acc = c.accumulate ? C0[m * c.N + n] : 0.0;
      for (int64_t k = 0; k < c.K; ++k)
        acc += double(A[m * c.K + k]) *
               (c.transposeB ? B[n * c.K + k] : B[k * c.N + n]);
      acc += bias[c.rowBias ? m : n];
      if (c.relu)
        acc = std::max(acc, 0.0);
      EXPECT_NEAR(C[m * c.N + n], acc, 1e-4 * (1 + std::abs(acc)))
          << "at " << m << "," << n;
    }
}

/// GEMMs large enough to be threaded (the cases above are not), through both
/// splits: tall C (rows split, B packed once and shared) and wide C (columns
/// split), with edges of every block, a transposed B, accumulation and an
/// epilogue. Each C element must be summed in the same order whatever the
/// thread count, so the bits are compared, not a tolerance.
TEST(KernelsThreadsTest, SgemmBitsDoNotDependOnThreads) {
  std::mt19937 rng(7);
  for (GemmCase c : {GemmCase{200, 181, 1100, false, true, true, true},
                     GemmCase{301, 150, 900, true, false, false, false},
                     GemmCase{20, 1500, 1200, false, false, false, true},
                     GemmCase{13, 1203, 2200, true, true, true, false}}) {
    SCOPED_TRACE(::testing::Message() << c.M << "x" << c.N << "x" << c.K);
    ASSERT_GE(double(c.M) * c.N * c.K, double(1 << 25)) << "not threaded";
    auto A = randomVector(c.M * c.K, rng), B = randomVector(c.K * c.N, rng);
    auto bias = randomVector(c.rowBias ? c.M : c.N, rng);
    auto C0 = randomVector(c.M * c.N, rng);
    nn_rt_epilogue ep = {};
    ep.addends[0] = {bias.data(), 0, c.rowBias ? 1 : 0, c.rowBias ? 0 : 1};
    ep.activation = c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE;
    auto run = [&](int threads) {
      nn_rt_set_num_threads(threads);
      std::vector<float> C = C0;
      nn_rt_sgemm(c.M, c.N, c.K, A.data(), c.transposeA ? 1 : c.K,
                  c.transposeA ? c.M : 1, B.data(), c.transposeB ? 1 : c.N,
                  c.transposeB ? c.K : 1, C.data(), c.N, c.accumulate, &ep);
      nn_rt_set_num_threads(1);
      return C;
    };
    std::vector<float> one = run(1);
    // The values against plain loops (the bits are checked below).
    spotCheckGemm(c, A, B, C0, bias, one);
    for (int threads : {2, 3}) {
      std::vector<float> many = run(threads);
      ASSERT_EQ(
          0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)))
          << threads << " threads";
    }
  }
}

/// The small-M split (splitsSmallGemm): C's column panels over the threads,
/// A read in place, from far fewer multiply-adds than the threshold above,
/// through nn_rt_sgemm and nn_rt_sgemm_packed_b alike. W1's three layers
/// are here (the last, one panel wide, stays on one thread).
TEST(KernelsThreadsTest, SmallGemmBitsDoNotDependOnThreads) {
  // A is read in place, and the small-M split used, by the AVX2 and
  // AVX-512 kernels; the scalar loops take the other splits, whose bits must
  // not depend on the threads either.
  const bool split = nn_rt::isaLevel() != nn_rt::IsaLevel::scalar;
  int64_t mr, nr;
  nn_rt::registerTile(mr, nr);
  std::mt19937 rng(11);
  for (GemmCase c : {GemmCase{64, 256, 784, true, false, false, true},
                     GemmCase{64, 256, 256, true, false, false, true},
                     GemmCase{64, 10, 256, true, false, false, false},
                     GemmCase{37, 100, 300, false, true, true, false},
                     GemmCase{72, 33, 520, false, false, false, true},
                     GemmCase{7, 1000, 200, true, true, false, true}}) {
    SCOPED_TRACE(::testing::Message() << c.M << "x" << c.N << "x" << c.K);
    int64_t rsB = c.transposeB ? 1 : c.N, csB = c.transposeB ? c.K : 1;
    auto A = randomVector(c.M * c.K, rng), B = randomVector(c.K * c.N, rng);
    nn_rt::GemmArgs g = {};
    g.M = c.M, g.N = c.N, g.K = c.K, g.A = A.data(), g.rsA = c.K, g.csA = 1;
    if (split && c.N > nr)
      ASSERT_TRUE(nn_rt::splitsSmallGemm(g, 2)) << "not split";
    else
      ASSERT_FALSE(nn_rt::splitsSmallGemm(g, 2)) << "split";
    auto bias = randomVector(c.rowBias ? c.M : c.N, rng);
    auto C0 = randomVector(c.M * c.N, rng);
    nn_rt_epilogue ep = {};
    ep.addends[0] = {bias.data(), 0, c.rowBias ? 1 : 0, c.rowBias ? 0 : 1};
    ep.activation = c.relu ? NN_RT_ACT_RELU : NN_RT_ACT_NONE;
    auto packed = alignedBuffer(nn_rt_sgemm_pack_b_size(c.K, c.N));
    nn_rt_sgemm_pack_b(c.K, c.N, B.data(), rsB, csB, packed.get());
    auto run = [&](int threads, bool prepacked) {
      nn_rt_set_num_threads(threads);
      std::vector<float> C = C0;
      if (prepacked)
        nn_rt_sgemm_packed_b(c.M, c.N, c.K, A.data(), c.K, 1, packed.get(),
                             C.data(), c.N, c.accumulate, &ep);
      else
        nn_rt_sgemm(c.M, c.N, c.K, A.data(), c.transposeA ? 1 : c.K,
                    c.transposeA ? c.M : 1, B.data(), rsB, csB, C.data(), c.N,
                    c.accumulate, &ep);
      nn_rt_set_num_threads(1);
      return C;
    };
    std::vector<float> one = run(1, false);
    spotCheckGemm(c, A, B, C0, bias, one);
    for (int threads : {1, 2, 3})
      for (bool prepacked : {false, true}) {
        std::vector<float> many = run(threads, prepacked);
        ASSERT_EQ(
            0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)))
            << threads << " threads, " << (prepacked ? "packed" : "plain")
            << " B";
      }
  }
}

/// A strided memref descriptor {allocated, aligned, offset, sizes,
/// strides} over `data`, as MLIR lays it out, for memrefCopy.
std::vector<int64_t> descriptor(float *data, int64_t offset,
                                std::vector<int64_t> sizes,
                                std::vector<int64_t> strides) {
  std::vector<int64_t> words(3);
  std::memcpy(&words[0], &data, sizeof data);
  std::memcpy(&words[1], &data, sizeof data);
  words[2] = offset;
  words.insert(words.end(), sizes.begin(), sizes.end());
  words.insert(words.end(), strides.begin(), strides.end());
  return words;
}

/// memrefCopy of the view (offset, sizes, strides) of 0, 1, 2, ... into
/// `dest` (its own offset, sizes and strides over zeros); the destination
/// buffer after.
std::vector<float> copyView(int64_t srcOffset, std::vector<int64_t> srcStrides,
                            std::vector<int64_t> sizes, int64_t dstOffset,
                            std::vector<int64_t> dstStrides, size_t dstSize) {
  std::vector<float> source(64), dest(dstSize, 0.f);
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = float(i);
  std::vector<int64_t> from =
      descriptor(source.data(), srcOffset, sizes, srcStrides);
  std::vector<int64_t> to =
      descriptor(dest.data(), dstOffset, sizes, dstStrides);
  nn_rt_unranked_memref src{int64_t(sizes.size()), from.data()};
  nn_rt_unranked_memref dst{int64_t(sizes.size()), to.data()};
  memrefCopy(sizeof(float), &src, &dst);
  return dest;
}

// What finalize-memref-to-llvm leaves to memrefCopy: views that are not
// both dense (a strided slice, a cat into an inner dim) and plain copies.
TEST(KernelsMemrefCopyTest, CopiesStridedAndDenseViews) {
  // Every other column of a 3x8 buffer into a dense 3x4.
  EXPECT_EQ(copyView(1, {8, 2}, {3, 4}, 0, {4, 1}, 12),
            (std::vector<float>{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23}));
  // Rows 1..2 of each 3x4 block of a 2x3x4 tensor (dense rows) into the
  // right half of a 2x2x8 buffer (a cat along the last dim).
  EXPECT_EQ(copyView(4, {12, 4, 1}, {2, 2, 4}, 4, {16, 8, 1}, 32),
            (std::vector<float>{0,  0,  0, 0,  4,  5, 6,  7,  0,  0,  0,
                                0,  8,  9, 10, 11, 0, 0,  0,  0,  16, 17,
                                18, 19, 0, 0,  0,  0, 20, 21, 22, 23}));
  // A column (rows of one element) and a rank-0 memref.
  EXPECT_EQ(copyView(2, {4, 1}, {3, 1}, 0, {1, 1}, 3),
            (std::vector<float>{2, 6, 10}));
  EXPECT_EQ(copyView(5, {}, {}, 1, {}, 2), (std::vector<float>{0, 5}));
  // Both dense: one block.
  EXPECT_EQ(copyView(3, {2, 1}, {2, 2}, 0, {2, 1}, 4),
            (std::vector<float>{3, 4, 5, 6}));
  // Nothing to copy.
  EXPECT_EQ(copyView(0, {4, 1}, {0, 4}, 0, {4, 1}, 2),
            (std::vector<float>{0, 0}));
}

// Unit dims are dropped and dims that are one on both sides merged before
// the rows are chosen: a phase of an interleave (a cat along a new unit
// dim) copies along its real inner dim, two elements apart.
TEST(KernelsMemrefCopyTest, DropsUnitDimsAndMergesDenseOnes) {
  // A dense 2x3x1 into phase 1 of a 2x3x2 buffer.
  EXPECT_EQ(copyView(0, {3, 1, 1}, {2, 3, 1}, 1, {6, 2, 1}, 12),
            (std::vector<float>{0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5}));
  // A dense 2x2x4 block into rows 16 apart: two rows of 8.
  std::vector<float> merged(32, 0.f);
  for (int i = 0; i < 8; ++i)
    merged[i] = float(i), merged[16 + i] = float(8 + i);
  EXPECT_EQ(copyView(0, {8, 4, 1}, {2, 2, 4}, 0, {16, 4, 1}, 32), merged);
  // Elements of 8 bytes (two floats each), every other one of three.
  std::vector<float> source(16), dest(6, 0.f);
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = float(i);
  std::vector<int64_t> from = descriptor(source.data(), 0, {3}, {2});
  std::vector<int64_t> to = descriptor(dest.data(), 0, {3}, {1});
  nn_rt_unranked_memref src{1, from.data()}, dst{1, to.data()};
  memrefCopy(8, &src, &dst);
  EXPECT_EQ(dest, (std::vector<float>{0, 1, 4, 5, 8, 9}));
}

} // namespace
