//===- GroupNorm.cpp - GroupNorm layer ------------------------------------===//

#include "nn/Modules/GroupNorm.h"

#include "NormAffine.h"
#include "nn/Frontend/Repr.h"

#include "nn/Functional.h"

namespace nn {

GroupNormImpl::GroupNormImpl(const GroupNormOptions &options_)
    : Cloneable("GroupNorm"), options(options_) {
  if (options.num_groups() <= 0 ||
      options.num_channels() % options.num_groups() != 0)
    throw Error(
        "GroupNorm: num_channels must be divisible by num_groups (got " +
        std::to_string(options.num_channels()) + " channels, " +
        std::to_string(options.num_groups()) + " groups)");
  detail::register_norm_affine(*this, options.affine(),
                               Shape({options.num_channels()}), weight, bias);
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  detail::reset_norm_affine(options.affine(), weight, bias);
}

Tensor GroupNormImpl::forward(const Tensor &input) {
  return F::group_norm(input, F::GroupNormFuncOptions(options.num_groups())
                                  .weight(weight)
                                  .bias(bias)
                                  .eps(options.eps()));
}

std::string GroupNormImpl::extra_repr() const {
  return std::to_string(options.num_groups()) + ", " +
         std::to_string(options.num_channels()) +
         ", eps=" + py_repr(options.eps()) +
         ", affine=" + py_repr(options.affine());
}

} // namespace nn
