//===- InstanceNorm.cpp - InstanceNorm1d, 2d and 3d -----------------------===//

#include "nn/Modules/InstanceNorm.h"

#include "../TraceContext.h"
#include "NormAffine.h"
#include "nn/Frontend/Repr.h"

#include "nn/Functional.h"

namespace nn {

InstanceNormImplBase::InstanceNormImplBase(std::string name, int64_t dims_,
                                           const InstanceNormOptions &options_)
    : Module(std::move(name)), options(options_), dims(dims_) {
  int64_t n = options.num_features();
  detail::register_norm_affine(*this, options.affine(), Shape({n}), weight,
                               bias);
  detail::register_running_stats(*this, options.track_running_stats(), n,
                                 running_mean, running_var,
                                 num_batches_tracked);
  reset_parameters();
}

void InstanceNormImplBase::reset_running_stats() {
  detail::reset_running_stats(options.track_running_stats(), running_mean,
                              running_var, num_batches_tracked);
}

void InstanceNormImplBase::reset_parameters() {
  reset_running_stats();
  detail::reset_norm_affine(options.affine(), weight, bias);
}

Tensor InstanceNormImplBase::forward(const Tensor &input) {
  if (input.dim() != dims + 1 && input.dim() != dims + 2)
    detail::TraceContext::current(name().c_str())
        .fail(name() + ": expected " + std::to_string(dims + 1) + "D or " +
              std::to_string(dims + 2) + "D input (got " +
              std::to_string(input.dim()) + "D input)");
  if (input.dim() == dims + 1) // unbatched
    return F::squeeze(forward(F::unsqueeze(input, 0)), 0);
  // As PyTorch: without affine parameters or running statistics nothing
  // depends on the channel count, and another one is taken.
  if ((options.affine() || options.track_running_stats()) &&
      input.size(1) != options.num_features())
    detail::TraceContext::current(name().c_str())
        .fail(name() + ": expected input with " +
              std::to_string(options.num_features()) + " channels, got " +
              shape_str(input.shape()));
  auto f = F::InstanceNormFuncOptions()
               .weight(weight)
               .bias(bias)
               .use_input_stats(is_training() || !options.track_running_stats())
               .momentum(options.momentum())
               .eps(options.eps());
  if (options.track_running_stats())
    f.running_mean(running_mean).running_var(running_var);
  return F::instance_norm(input, f);
}

std::string InstanceNormImplBase::extra_repr() const {
  return std::to_string(options.num_features()) +
         ", eps=" + py_repr(options.eps()) +
         ", momentum=" + py_repr(options.momentum()) +
         ", affine=" + py_repr(options.affine()) +
         ", track_running_stats=" + py_repr(options.track_running_stats());
}

} // namespace nn
