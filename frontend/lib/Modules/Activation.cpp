//===- Activation.cpp - Activation layers ---------------------------------===//

#include "nn/Modules/Activation.h"

#include "nn/Functional.h"

namespace nn {

Tensor ReLUImpl::forward(const Tensor &input) { return F::relu(input); }

} // namespace nn
