//===- Clip.h - Gradient clipping -------------------------------*- C++ -*-===//
//
// torch.nn.utils.clip_grad_norm_ and clip_grad_value_, on the gradients the
// parameters hold (those without one are skipped), in place:
//
//   step.forward_backward(x, y);
//   double norm = nn::clip_grad_norm_(model->parameters(), 1.0);
//   opt.step();
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPTIM_CLIP_H
#define NN_OPTIM_CLIP_H

#include "nn/Runtime/Tensor.h"

#include <limits>
#include <vector>

namespace nn {

/// Scales the gradients so that their total `norm_type`-norm (the norm of
/// the per-tensor norms; infinity: the largest magnitude) is at most
/// `max_norm`, by max_norm / (total + 1e-6) when it is larger; returns the
/// total norm before clipping. With `error_if_nonfinite`, a NaN or infinite
/// total is an nn::Error and nothing is changed.
double clip_grad_norm_(const std::vector<Tensor> &parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);

/// Clamps every gradient element to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor> &parameters, double clip_value);

} // namespace nn

#endif // NN_OPTIM_CLIP_H
