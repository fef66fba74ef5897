//===- Dropout.cpp - Dropout layer ----------------------------------------===//

#include "nn/Modules/Dropout.h"

#include "nn/Frontend/Repr.h"
#include "nn/Functional.h"

namespace nn {

DropoutImpl::DropoutImpl(const DropoutOptions &options_)
    : Cloneable("Dropout"), options(options_) {
  if (options.p() < 0.0 || options.p() > 1.0)
    throw Error("dropout probability has to be between 0 and 1, but got " +
                std::to_string(options.p()));
}

Tensor DropoutImpl::forward(const Tensor &input) {
  return F::dropout(input, options.p(), is_training());
}

std::string DropoutImpl::extra_repr() const {
  return "p=" + py_repr(options.p()) +
         ", inplace=" + py_repr(options.inplace());
}

} // namespace nn
