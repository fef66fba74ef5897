//===- Padding.cpp - Padding layers ---------------------------------------===//

#include "nn/Modules/Padding.h"

#include "nn/Frontend/Repr.h"
#include "nn/Functional.h"

namespace nn {

template <size_t D> Tensor ConstantPadImpl<D>::forward(const Tensor &input) {
  return F::pad(
      input, F::PadFuncOptions(options.padding().vec()).value(options.value()));
}

template <size_t D> std::string ConstantPadImpl<D>::extra_repr() const {
  return "padding=" + options.padding().repr() +
         ", value=" + py_repr(options.value());
}

template <size_t D> Tensor EdgePadImpl<D>::forward(const Tensor &input) {
  return F::pad(input, F::PadFuncOptions(options.padding().vec()).mode(mode_));
}

template <size_t D> std::string EdgePadImpl<D>::extra_repr() const {
  return options.padding().repr();
}

template class ConstantPadImpl<1>;
template class ConstantPadImpl<2>;
template class ConstantPadImpl<3>;
template class EdgePadImpl<1>;
template class EdgePadImpl<2>;
template class EdgePadImpl<3>;

} // namespace nn
