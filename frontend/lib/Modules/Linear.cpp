//===- Linear.cpp - Linear layer ------------------------------------------===//

#include "nn/Modules/Linear.h"

#include "nn/Frontend/Repr.h"
#include "nn/Functional.h"
#include "nn/Init.h"

#include <cmath>

namespace nn {

LinearImpl::LinearImpl(const LinearOptions &options_)
    : LinearImpl(options_, "Linear") {}

LinearImpl::LinearImpl(const LinearOptions &options_, std::string type_name)
    : Cloneable(std::move(type_name)), options(options_) {
  weight = Tensor::zeros({options.out_features(), options.in_features()});
  register_parameter("weight", &weight);
  if (options.bias()) {
    bias = Tensor::zeros({options.out_features()});
    register_parameter("bias", &bias);
  } else {
    register_parameter("bias", nullptr);
  }
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    int64_t fanIn = init::calculate_fan_in_and_fan_out(weight).first;
    double bound = fanIn > 0 ? 1.0 / std::sqrt(static_cast<double>(fanIn)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor &input) {
  return F::linear(input, weight, bias);
}

std::string LinearImpl::extra_repr() const {
  return "in_features=" + std::to_string(options.in_features()) +
         ", out_features=" + std::to_string(options.out_features()) +
         ", bias=" + py_repr(options.bias());
}

} // namespace nn
