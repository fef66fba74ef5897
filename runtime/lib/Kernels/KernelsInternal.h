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

namespace nn_rt {

/// The operands of nn_rt_sgemm (see Kernels.h).
struct GemmArgs {
  int64_t M, N, K;
  const float *A;
  int64_t rsA, csA;
  const float *B;
  int64_t rsB, csB;
  float *C;
  int64_t rsC;
  const float *bias;
  int64_t bsM, bsN;
  bool accumulate;
  int32_t activation;
};

/// The operands of nn_rt_conv2d_nchw.
struct ConvArgs {
  int64_t N, C, H, W;
  const float *input;
  int64_t O, KH, KW;
  const float *weight, *bias;
  int64_t strideH, strideW, padTop, padLeft, dilationH, dilationW, OH, OW;
  float *output;
  int32_t activation;
};

/// The GEMM of one image: Out[O, OH*OW] = W[O, C*KH*KW] x im2col (B unused).
static inline GemmArgs convGemmArgs(const ConvArgs &cv, int64_t image) {
  int64_t k = cv.C * cv.KH * cv.KW, p = cv.OH * cv.OW;
  return GemmArgs{cv.O,      p,       k,       cv.weight,
                  k,         1,       nullptr, 0,
                  0,         cv.output + image * cv.O * p,
                  p,         cv.bias, 1,       0,
                  false,     cv.activation};
}

#define NN_DECLARE_ISA(isa)                                                    \
  namespace isa {                                                              \
  int64_t mr();                                                                \
  int64_t nr();                                                                \
  void sgemm(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0,            \
             int64_t n1);                                                      \
  void conv2d(const ConvArgs &cv, int64_t image, int64_t p0, int64_t p1);      \
  }
NN_DECLARE_ISA(avx2)
NN_DECLARE_ISA(avx512)
#undef NN_DECLARE_ISA

} // namespace nn_rt

#endif // NN_RUNTIME_KERNELS_INTERNAL_H
