//===- ConvReference.h - Reference convolution for kernel tests -*- C++ -*-===//
//
// What DirectConvTest.cpp and KernelsTest.cpp check the convolution kernels
// against: a window (sizes, strides, pads, dilation), the convolution with
// groups in double followed by nn_rt_epilogue's addends and activation, and
// the comparison with a float result that names the first wrong pixel; and
// the epilogue cases both files build (testEpilogue).
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_UNIT_RUNTIME_CONVREFERENCE_H
#define NN_TESTS_UNIT_RUNTIME_CONVREFERENCE_H

#include "nn/Runtime/Kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

namespace nn_test {

inline std::vector<float> randomVector(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// A convolution's window; the output size follows from the pads, the
/// bottom and right pads being `padBottom` / `padRight`.
struct ConvWindow {
  int64_t N, C, H, W, O, KH, KW, strideH, strideW, padTop, padLeft, padBottom,
      padRight, dilationH, dilationW;
  int64_t OH() const {
    return (H + padTop + padBottom - dilationH * (KH - 1) - 1) / strideH + 1;
  }
  int64_t OW() const {
    return (W + padLeft + padRight - dilationW * (KW - 1) - 1) / strideW + 1;
  }
};

inline std::ostream &operator<<(std::ostream &os, const ConvWindow &w) {
  return os << "N" << w.N << " C" << w.C << " " << w.H << "x" << w.W << " O"
            << w.O << " k" << w.KH << "x" << w.KW << " s" << w.strideH << ","
            << w.strideW << " p" << w.padTop << "," << w.padLeft << ","
            << w.padBottom << "," << w.padRight << " d" << w.dilationH << ","
            << w.dilationW;
}

/// An epilogue of the kernel tests: up to two addends and an activation,
/// with the clamp bounds and leaky_relu slope every case uses (which
/// activate() reads back).
inline nn_rt_epilogue testEpilogue(nn_rt_addend a0, nn_rt_addend a1,
                                   int32_t activation) {
  nn_rt_epilogue ep = {};
  ep.addends[0] = a0;
  ep.addends[1] = a1;
  ep.activation = activation;
  ep.min = -0.5f;
  ep.max = 0.75f;
  ep.slope = 0.125f;
  return ep;
}

/// Names an epilogue case in a failure: its activation and addend strides.
inline ::testing::Message describeEpilogue(const nn_rt_epilogue &ep) {
  return ::testing::Message()
         << "activation " << ep.activation << " strides "
         << ep.addends[0].col_stride << "," << ep.addends[1].col_stride;
}

/// The reference of nn_rt_epilogue's activation, in double.
inline double activate(const nn_rt_epilogue &ep, double v) {
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

/// The convolution in double with `groups` groups (C / groups input
/// channels per output channel), then the epilogue.
inline std::vector<double> referenceConv(const ConvWindow &w, int64_t groups,
                                         const std::vector<float> &in,
                                         const std::vector<float> &weight,
                                         const nn_rt_epilogue &ep) {
  const int64_t OH = w.OH(), OW = w.OW(), cg = w.C / groups, og = w.O / groups;
  std::vector<double> out(w.N * w.O * OH * OW);
  for (int64_t n = 0; n < w.N; ++n)
    for (int64_t o = 0; o < w.O; ++o)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t x = 0; x < OW; ++x) {
          double acc = 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ky = 0; ky < w.KH; ++ky)
              for (int64_t kx = 0; kx < w.KW; ++kx) {
                int64_t iy = y * w.strideH - w.padTop + ky * w.dilationH;
                int64_t ix = x * w.strideW - w.padLeft + kx * w.dilationW;
                if (iy < 0 || iy >= w.H || ix < 0 || ix >= w.W)
                  continue;
                int64_t ic = (o / og) * cg + c;
                acc += double(in[((n * w.C + ic) * w.H + iy) * w.W + ix]) *
                       weight[((o * cg + c) * w.KH + ky) * w.KW + kx];
              }
          int64_t p = y * OW + x;
          for (const nn_rt_addend &a : ep.addends)
            if (a.data)
              acc += a.data[n * a.image_stride + o * a.row_stride +
                            p * a.col_stride];
          out[((n * w.O + o) * OH + y) * OW + x] = activate(ep, acc);
        }
  return out;
}

inline void expectConvNear(const std::vector<float> &got,
                           const std::vector<double> &want,
                           const ConvWindow &w) {
  const int64_t OH = w.OH(), OW = w.OW();
  for (size_t i = 0; i < want.size(); ++i) {
    int64_t x = i % OW, y = (i / OW) % OH, o = (i / (OW * OH)) % w.O,
            n = i / (OW * OH * w.O);
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
        << "image " << n << " channel " << o << " at " << y << "," << x;
  }
}

} // namespace nn_test

#endif // NN_TESTS_UNIT_RUNTIME_CONVREFERENCE_H
