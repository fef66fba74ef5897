//===- Identity.cpp - Identity layer --------------------------------------===//

#include "nn/Modules/Identity.h"

namespace nn {

Tensor IdentityImpl::forward(const Tensor &input) { return input; }

} // namespace nn
