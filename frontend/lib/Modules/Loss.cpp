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

BCELossImpl::BCELossImpl(const BCELossOptions &options_)
    : Cloneable("BCELoss"), options(options_), weight(options_.weight()) {
  register_buffer("weight", &weight);
}

Tensor BCELossImpl::forward(const Tensor &input, const Tensor &target) {
  BCELossOptions now = options;
  return F::binary_cross_entropy(input, target, now.weight(weight));
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(
    const BCEWithLogitsLossOptions &options_)
    : Cloneable("BCEWithLogitsLoss"), options(options_),
      weight(options_.weight()), pos_weight(options_.pos_weight()) {
  register_buffer("weight", &weight);
  register_buffer("pos_weight", &pos_weight);
}

Tensor BCEWithLogitsLossImpl::forward(const Tensor &input,
                                      const Tensor &target) {
  BCEWithLogitsLossOptions now = options;
  return F::binary_cross_entropy_with_logits(
      input, target, now.weight(weight).pos_weight(pos_weight));
}

SmoothL1LossImpl::SmoothL1LossImpl(const SmoothL1LossOptions &options_)
    : Cloneable("SmoothL1Loss"), options(options_) {}

Tensor SmoothL1LossImpl::forward(const Tensor &input, const Tensor &target) {
  return F::smooth_l1_loss(input, target, options);
}

HuberLossImpl::HuberLossImpl(const HuberLossOptions &options_)
    : Cloneable("HuberLoss"), options(options_) {}

Tensor HuberLossImpl::forward(const Tensor &input, const Tensor &target) {
  return F::huber_loss(input, target, options);
}

KLDivLossImpl::KLDivLossImpl(const KLDivLossOptions &options_)
    : Cloneable("KLDivLoss"), options(options_) {}

Tensor KLDivLossImpl::forward(const Tensor &input, const Tensor &target) {
  return F::kl_div(input, target, options);
}

} // namespace nn
