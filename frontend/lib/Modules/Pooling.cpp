//===- Pooling.cpp - Pooling and upsampling layers ------------------------===//

#include "nn/Modules/Pooling.h"
#include "nn/Modules/Upsampling.h"

#include "nn/Frontend/Repr.h"
#include "nn/Functional.h"

#include <cmath>
#include <cstdio>

namespace nn {

namespace {

/// Python's repr of a float: the shortest digits that read back, with ".0"
/// for integral values.
std::string pyFloat(double v) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  return s;
}

} // namespace

/// "MaxPool3d": the layer's name for `D` dimensions.
template <size_t D> std::string layerName(const char *base) {
  return base + std::to_string(D) + "d";
}

template <size_t D>
MaxPoolNdImpl<D>::MaxPoolNdImpl(const MaxPoolOptions<D> &options_)
    : Module(layerName<D>("MaxPool")), options(options_) {}

template <size_t D> Tensor MaxPoolNdImpl<D>::forward(const Tensor &input) {
  if constexpr (D == 1)
    return F::max_pool1d(input, options);
  else if constexpr (D == 2)
    return F::max_pool2d(input, options);
  else
    return F::max_pool3d(input, options);
}

template <size_t D> std::string MaxPoolNdImpl<D>::extra_repr() const {
  return "kernel_size=" + options.kernel_size().int_or_tuple() +
         ", stride=" + options.stride().int_or_tuple() +
         ", padding=" + options.padding().int_or_tuple() +
         ", dilation=" + options.dilation().int_or_tuple() +
         ", ceil_mode=" + py_repr(options.ceil_mode());
}

template <size_t D>
AvgPoolNdImpl<D>::AvgPoolNdImpl(const AvgPoolOptions<D> &options_)
    : Module(layerName<D>("AvgPool")), options(options_) {}

template <size_t D> Tensor AvgPoolNdImpl<D>::forward(const Tensor &input) {
  if constexpr (D == 1)
    return F::avg_pool1d(input, options);
  else if constexpr (D == 2)
    return F::avg_pool2d(input, options);
  else
    return F::avg_pool3d(input, options);
}

template <size_t D> std::string AvgPoolNdImpl<D>::extra_repr() const {
  // torch.nn.AvgPool1d stores _single(kernel_size) and so prints tuples;
  // AvgPool2d and 3d print what they were given.
  auto show = [](const ExpandingArray<D> &a) {
    return D == 1 ? a.repr() : a.int_or_tuple();
  };
  return "kernel_size=" + show(options.kernel_size()) +
         ", stride=" + show(options.stride()) +
         ", padding=" + show(options.padding());
}

template <size_t D>
AdaptiveAvgPoolNdImpl<D>::AdaptiveAvgPoolNdImpl(
    const AdaptiveAvgPoolOptions<D> &options_)
    : Module(layerName<D>("AdaptiveAvgPool")), options(options_) {}

template <size_t D>
Tensor AdaptiveAvgPoolNdImpl<D>::forward(const Tensor &input) {
  if constexpr (D == 1)
    return F::adaptive_avg_pool1d(input, options);
  else if constexpr (D == 2)
    return F::adaptive_avg_pool2d(input, options);
  else
    return F::adaptive_avg_pool3d(input, options);
}

template <size_t D> std::string AdaptiveAvgPoolNdImpl<D>::extra_repr() const {
  return "output_size=" + options.output_size().int_or_tuple();
}

template class MaxPoolNdImpl<1>;
template class MaxPoolNdImpl<2>;
template class MaxPoolNdImpl<3>;
template class AvgPoolNdImpl<1>;
template class AvgPoolNdImpl<2>;
template class AvgPoolNdImpl<3>;
template class AdaptiveAvgPoolNdImpl<1>;
template class AdaptiveAvgPoolNdImpl<2>;
template class AdaptiveAvgPoolNdImpl<3>;

UpsampleImpl::UpsampleImpl(const UpsampleOptions &options_)
    : Cloneable("Upsample"), options(options_) {}

Tensor UpsampleImpl::forward(const Tensor &input) {
  return F::interpolate(input, F::InterpolateFuncOptions()
                                   .size(options.size())
                                   .scale_factor(options.scale_factor())
                                   .mode(options.mode())
                                   .align_corners(options.align_corners()));
}

std::string UpsampleImpl::extra_repr() const {
  // torch.nn.Upsample.extra_repr
  std::string s;
  if (options.scale_factor()) {
    const std::vector<double> &f = *options.scale_factor();
    s = "scale_factor=";
    if (f.size() == 1) {
      s += pyFloat(f[0]);
    } else {
      s += "(";
      for (size_t i = 0; i < f.size(); ++i)
        s += (i ? ", " : "") + pyFloat(f[i]);
      s += f.size() == 1 ? ",)" : ")";
    }
  } else {
    s = "size=";
    std::vector<int64_t> size = options.size().value_or(std::vector<int64_t>{});
    if (size.size() == 1) {
      s += std::to_string(size[0]);
    } else {
      s += "(";
      for (size_t i = 0; i < size.size(); ++i)
        s += (i ? ", " : "") + std::to_string(size[i]);
      s += ")";
    }
  }
  s += options.mode() == InterpolateMode::bilinear ? ", mode=bilinear"
                                                   : ", mode=nearest";
  return s;
}

} // namespace nn
