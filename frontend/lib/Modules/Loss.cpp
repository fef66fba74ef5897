//===- Loss.cpp - Loss layers ---------------------------------------------===//

#include "nn/Modules/Loss.h"

#include "nn/Functional.h"

namespace nn {

MSELossImpl::MSELossImpl(const MSELossOptions &options_)
    : Cloneable("MSELoss"), options(options_) {}

Tensor MSELossImpl::forward(const Tensor &input, const Tensor &target) {
  return F::mse_loss(input, target, options);
}

L1LossImpl::L1LossImpl(const L1LossOptions &options_)
    : Cloneable("L1Loss"), options(options_) {}

Tensor L1LossImpl::forward(const Tensor &input, const Tensor &target) {
  return F::l1_loss(input, target, options);
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions &options_)
    : Cloneable("NLLLoss"), options(options_), weight(options_.weight()) {
  register_buffer("weight", &weight);
}

Tensor NLLLossImpl::forward(const Tensor &input, const Tensor &target) {
  NLLLossOptions now = options;
  return F::nll_loss(input, target, now.weight(weight));
}

CrossEntropyLossImpl::CrossEntropyLossImpl(
    const CrossEntropyLossOptions &options_)
    : Cloneable("CrossEntropyLoss"), options(options_),
      weight(options_.weight()) {
  register_buffer("weight", &weight);
}

Tensor CrossEntropyLossImpl::forward(const Tensor &input,
                                     const Tensor &target) {
  CrossEntropyLossOptions now = options;
  return F::cross_entropy(input, target, now.weight(weight));
}

} // namespace nn
