//===- Flatten.cpp - Flatten layer ----------------------------------------===//

#include "nn/Modules/Flatten.h"

#include "nn/Functional.h"

namespace nn {

FlattenImpl::FlattenImpl(const FlattenOptions &options_)
    : Cloneable("Flatten"), options(options_) {}

Tensor FlattenImpl::forward(const Tensor &input) {
  return F::flatten(input, options.start_dim(), options.end_dim());
}

std::string FlattenImpl::extra_repr() const {
  return "start_dim=" + std::to_string(options.start_dim()) +
         ", end_dim=" + std::to_string(options.end_dim());
}

} // namespace nn
