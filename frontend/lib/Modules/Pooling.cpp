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

MaxPool2dImpl::MaxPool2dImpl(const MaxPool2dOptions &options_)
    : Cloneable("MaxPool2d"), options(options_) {}

Tensor MaxPool2dImpl::forward(const Tensor &input) {
  return F::max_pool2d(input, options);
}

std::string MaxPool2dImpl::extra_repr() const {
  return "kernel_size=" + options.kernel_size().int_or_tuple() +
         ", stride=" + options.stride().int_or_tuple() +
         ", padding=" + options.padding().int_or_tuple() +
         ", dilation=" + options.dilation().int_or_tuple() +
         ", ceil_mode=" + py_repr(options.ceil_mode());
}

AvgPool2dImpl::AvgPool2dImpl(const AvgPool2dOptions &options_)
    : Cloneable("AvgPool2d"), options(options_) {}

Tensor AvgPool2dImpl::forward(const Tensor &input) {
  return F::avg_pool2d(input, options);
}

std::string AvgPool2dImpl::extra_repr() const {
  return "kernel_size=" + options.kernel_size().int_or_tuple() +
         ", stride=" + options.stride().int_or_tuple() +
         ", padding=" + options.padding().int_or_tuple();
}

AdaptiveAvgPool2dImpl::AdaptiveAvgPool2dImpl(
    const AdaptiveAvgPool2dOptions &options_)
    : Cloneable("AdaptiveAvgPool2d"), options(options_) {}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor &input) {
  return F::adaptive_avg_pool2d(input, options);
}

std::string AdaptiveAvgPool2dImpl::extra_repr() const {
  return "output_size=" + options.output_size().int_or_tuple();
}

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
