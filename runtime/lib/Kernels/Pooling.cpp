//===- Pooling.cpp - 2-D max pooling -------------------------------------===//
//
// nn_rt_max_pool2d_nchw: one output row at a time, split over the thread
// pool by rows. The row is its own accumulator: it starts at -inf and every
// window tap that lands in the input combines one input row into it, over
// the output columns whose tap is inside that row, so the loops carry no
// bounds checks and padding is never materialized (the linalg lowering it
// replaces copied the input into a -inf padded tensor first, then ran
// scalar loops on one thread: ResNet-18's stem pooling was 7% of the
// model). The column loops are unit- or 2-strided with compile-time strides
// and vectorize at -O3 for the baseline ISA (SSE). That runs the stem's
// pooling compute-bound, at about 5 GB/s of input on Zen 5; builds of the
// same loops for AVX2 and AVX-512 measured within the noise of it (GCC
// vectorizes them 256 bits wide, and rows of 55-56 columns leave scalar
// tails), so there is one build.
//
//===----------------------------------------------------------------------===//

#include "KernelsInternal.h"

#include <math.h>

namespace {

/// Below this many window reads the pooling runs on the calling thread (as
/// a depthwise convolution's multiply-adds, which cost the same load each).
constexpr double kMinParallelReads = 1 << 18;

using nn_rt::maxI;
using nn_rt::minI;

/// Floor division for a positive divisor.
inline int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

struct MaxPoolArgs {
  int64_t H, W, KH, KW, strideH, strideW, padTop, padLeft, dilationH, dilationW,
      OH, OW;
  const float *input;
  float *output;
};

/// out[i] = max(out[i], in[i * S]) for i < n, as PyTorch's max pooling
/// compares: a NaN read replaces the maximum, and a NaN maximum stays.
template <int64_t S>
void maxInto(float *__restrict out, const float *__restrict in, int64_t n,
             int64_t stride) {
  const int64_t s = S > 0 ? S : stride;
  for (int64_t i = 0; i < n; ++i) {
    float v = in[i * s], m = out[i];
    out[i] = (v > m || v != v) ? v : m;
  }
}

/// Output rows [begin, end) of every plane, row r being row r % OH of
/// plane r / OH.
void maxPoolRows(void *ctx, int64_t begin, int64_t end) {
  const MaxPoolArgs &a = *static_cast<const MaxPoolArgs *>(ctx);
  auto *combine = a.strideW == 1   ? maxInto<1>
                  : a.strideW == 2 ? maxInto<2>
                                   : maxInto<0>;
  for (int64_t r = begin; r < end; ++r) {
    int64_t plane = r / a.OH, oh = r % a.OH;
    float *out = a.output + r * a.OW;
    for (int64_t x = 0; x < a.OW; ++x)
      out[x] = -INFINITY;
    const float *planeIn = a.input + plane * a.H * a.W;
    for (int64_t kh = 0; kh < a.KH; ++kh) {
      int64_t ih = oh * a.strideH - a.padTop + kh * a.dilationH;
      if (ih < 0 || ih >= a.H)
        continue;
      const float *row = planeIn + ih * a.W;
      for (int64_t kw = 0; kw < a.KW; ++kw) {
        // Columns x with 0 <= x * strideW + offset < W.
        int64_t offset = kw * a.dilationW - a.padLeft;
        int64_t lo = maxI(0, floorDiv(-offset + a.strideW - 1, a.strideW));
        int64_t hi = minI(a.OW, floorDiv(a.W - 1 - offset, a.strideW) + 1);
        if (lo < hi)
          combine(out + lo, row + lo * a.strideW + offset, hi - lo, a.strideW);
      }
    }
  }
}

} // namespace

extern "C" void nn_rt_max_pool2d_nchw(int64_t N, int64_t C, int64_t H,
                                      int64_t W, const float *input, int64_t KH,
                                      int64_t KW, int64_t strideH,
                                      int64_t strideW, int64_t padTop,
                                      int64_t padLeft, int64_t dilationH,
                                      int64_t dilationW, int64_t OH, int64_t OW,
                                      float *output) {
  if (N <= 0 || C <= 0 || OH <= 0 || OW <= 0)
    return;
  MaxPoolArgs a = {H,       W,         KH,        KW, strideH, strideW, padTop,
                   padLeft, dilationH, dilationW, OH, OW,      input,   output};
  int64_t rows = N * C * OH;
  double reads = double(rows) * double(OW) * double(KH * KW);
  if (reads >= kMinParallelReads && nn_rt_get_num_threads() > 1)
    nn_rt_parallel_for(rows, maxPoolRows, &a);
  else
    maxPoolRows(&a, 0, rows);
}
