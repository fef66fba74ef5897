//===- Clip.cpp - Gradient clipping ---------------------------------------===//
//
// torch/nn/utils/clip_grad.py: per-tensor norms, the norm of those, then
// one factor clamped to 1 multiplied into every gradient. The sums run in
// double (PyTorch's in the gradients' type), the scaling in the
// gradients' type.
//
//===----------------------------------------------------------------------===//

#include "nn/Optim/Clip.h"

#include "nn/Runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace nn {

namespace {

/// Calls fn(element&) on every element of every float gradient.
template <typename Fn>
void forEachGradient(const std::vector<Tensor> &params, Fn fn) {
  for (const Tensor &p : params) {
    Tensor g = p.grad();
    if (!g.defined())
      continue;
    if (g.dtype() == DType::f32) {
      float *d = g.data_ptr<float>();
      for (int64_t i = 0, n = g.numel(); i < n; ++i)
        fn(d[i]);
    } else if (g.dtype() == DType::f64) {
      double *d = g.data_ptr<double>();
      for (int64_t i = 0, n = g.numel(); i < n; ++i)
        fn(d[i]);
    } else {
      throw Error("clipping " + std::string(dtype_name(g.dtype())) +
                  " gradients is not supported");
    }
  }
}

/// The norm_type-norm of `values` (infinity: the largest).
double norm(const std::vector<double> &values, double norm_type) {
  if (std::isinf(norm_type)) {
    double most = 0;
    for (double v : values)
      most = std::max(most, std::abs(v));
    return most;
  }
  double sum = 0;
  for (double v : values)
    sum += std::pow(std::abs(v), norm_type);
  return std::pow(sum, 1.0 / norm_type);
}

} // namespace

double clip_grad_norm_(const std::vector<Tensor> &parameters, double max_norm,
                       double norm_type, bool error_if_nonfinite) {
  if (!(norm_type > 0))
    throw Error("clip_grad_norm_: norm_type must be positive, got " +
                std::to_string(norm_type));
  std::vector<double> norms;
  for (const Tensor &p : parameters) {
    if (!p.grad().defined())
      continue;
    std::vector<double> elements;
    forEachGradient({p}, [&](auto v) { elements.push_back(double(v)); });
    norms.push_back(norm(elements, norm_type));
  }
  if (norms.empty())
    return 0;
  double total = norm(norms, norm_type);
  if (error_if_nonfinite && !std::isfinite(total))
    throw Error("clip_grad_norm_: the total norm of order " +
                std::to_string(norm_type) + " of the gradients is " +
                std::to_string(total) + "; nothing was clipped");
  double coef = std::min(max_norm / (total + 1e-6), 1.0);
  // The factor in the gradients' type, as PyTorch's clamped 0-dim tensor.
  forEachGradient(parameters, [&](auto &v) {
    v *= static_cast<std::remove_reference_t<decltype(v)>>(coef);
  });
  return total;
}

void clip_grad_value_(const std::vector<Tensor> &parameters,
                      double clip_value) {
  forEachGradient(parameters, [&](auto &v) {
    using T = std::remove_reference_t<decltype(v)>;
    T hi = static_cast<T>(clip_value);
    v = std::clamp(v, -hi, hi);
  });
}

} // namespace nn
