//===- BatchNorm.cpp - BatchNorm1d, 2d and 3d -----------------------------===//

#include "nn/Modules/BatchNorm.h"

#include "../TraceContext.h"
#include "NormAffine.h"
#include "nn/Frontend/Repr.h"
#include "nn/Init.h"

#include "nn/Functional.h"

namespace nn {

BatchNormImplBase::BatchNormImplBase(std::string name,
                                     const BatchNormOptions &options_)
    : Module(std::move(name)), options(options_) {
  int64_t n = options.num_features();
  detail::register_norm_affine(*this, options.affine(), Shape({n}), weight,
                               bias);
  detail::register_running_stats(*this, options.track_running_stats(), n,
                                 running_mean, running_var,
                                 num_batches_tracked);
  reset_parameters();
}

void BatchNormImplBase::reset_running_stats() {
  detail::reset_running_stats(options.track_running_stats(), running_mean,
                              running_var, num_batches_tracked);
}

void BatchNormImplBase::reset_parameters() {
  reset_running_stats();
  detail::reset_norm_affine(options.affine(), weight, bias);
}

Tensor BatchNormImplBase::forward(const Tensor &input) {
  check_input_dim(input);
  auto f = F::BatchNormFuncOptions()
               .weight(weight)
               .bias(bias)
               .eps(options.eps())
               .momentum(options.momentum());
  if (!options.track_running_stats())
    return F::batch_norm(input, Tensor(), Tensor(), f.training(true));
  if (!is_training())
    return F::batch_norm(input, running_mean, running_var, f.training(false));
  return F::batch_norm(
      input, running_mean, running_var,
      f.training(true).num_batches_tracked(num_batches_tracked));
}

std::string BatchNormImplBase::extra_repr() const {
  return std::to_string(options.num_features()) +
         ", eps=" + py_repr(options.eps()) + ", momentum=" +
         (options.momentum() ? py_repr(*options.momentum())
                             : std::string("None")) +
         ", affine=" + py_repr(options.affine()) +
         ", track_running_stats=" + py_repr(options.track_running_stats());
}

void BatchNorm1dImpl::check_input_dim(const Tensor &input) const {
  if (input.dim() != 2 && input.dim() != 3)
    detail::TraceContext::current("BatchNorm1d")
        .fail("BatchNorm1d: expected 2D or 3D input (got " +
              std::to_string(input.dim()) + "D input)");
}

void BatchNorm2dImpl::check_input_dim(const Tensor &input) const {
  if (input.dim() != 4)
    detail::TraceContext::current("BatchNorm2d")
        .fail("BatchNorm2d: expected 4D input (got " +
              std::to_string(input.dim()) + "D input)");
}

void BatchNorm3dImpl::check_input_dim(const Tensor &input) const {
  if (input.dim() != 5)
    detail::TraceContext::current("BatchNorm3d")
        .fail("BatchNorm3d: expected 5D input (got " +
              std::to_string(input.dim()) + "D input)");
}

} // namespace nn
