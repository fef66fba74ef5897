//===- Functional.h - torch.nn.functional for traced forwards ---*- C++ -*-===//
//
// The functional ops a forward is written with. Each records one nn dialect
// op in the current trace; shape errors throw nn::Error prefixed with the
// module path, e.g.
//   "blocks.1.fc: linear: input has 31 features, weight expects 32 (input
//    2x5x31, weight 96x32)".
// Outside nn::trace they throw: a forward runs only while it is traced.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FUNCTIONAL_H
#define NN_FUNCTIONAL_H

#include "nn/Functional/Activation.h"
#include "nn/Functional/Attention.h"
#include "nn/Functional/Convolution.h"
#include "nn/Functional/Elementwise.h"
#include "nn/Functional/Loss.h"
#include "nn/Functional/Normalization.h"
#include "nn/Functional/Shape.h"
#include "nn/Runtime/Tensor.h"

namespace nn {
namespace functional {

/// input · weightᵀ + bias; `bias` may be undefined (Tensor()).
Tensor linear(const Tensor &input, const Tensor &weight,
              const Tensor &bias = Tensor());
/// torch.matmul for operands of rank ≥ 2, batch dimensions broadcast.
Tensor matmul(const Tensor &lhs, const Tensor &rhs);
/// beta·input + alpha·(mat1 · mat2) for 2-D mat1 [n, k], mat2 [k, m] and
/// input broadcastable to [n, m], as torch.addmm (beta = 0 ignores input).
Tensor addmm(const Tensor &input, const Tensor &mat1, const Tensor &mat2,
             double beta = 1.0, double alpha = 1.0);
/// lhs + rhs with broadcasting.
Tensor add(const Tensor &lhs, const Tensor &rhs);
Tensor relu(const Tensor &input);
/// Identity unless `training` (and p > 0). The training mask comes from a
/// counter-based generator whose state the compiled forward takes as an
/// input: nn::Artifact supplies it and advances it on every run, so each run
/// draws a fresh mask and a seed (nn::manual_seed before nn::compile, or
/// Artifact::manual_seed) reproduces the sequence. It is not the mask
/// PyTorch draws.
Tensor dropout(const Tensor &input, double p = 0.5, bool training = true);

} // namespace functional

namespace F = functional;

inline Tensor operator+(const Tensor &lhs, const Tensor &rhs) {
  return functional::add(lhs, rhs);
}

} // namespace nn

#endif // NN_FUNCTIONAL_H
