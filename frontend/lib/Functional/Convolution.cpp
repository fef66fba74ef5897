//===- Convolution.cpp - nn::functional: convolution, pooling and resampling
//---===//
//
// Records the ops of nn/Functional/Convolution.h into the current trace.
// What the IR cannot express directly is resolved here, as PyTorch resolves
// it in Python: padding="same" becomes explicit (possibly asymmetric)
// padding, interpolate's scale_factor becomes an output size.
//
//===----------------------------------------------------------------------===//

#include "nn/Functional/Convolution.h"

#include "../TraceContext.h"

#include "nn/IR/NNOps.h"

#include <cmath>

namespace nn::functional {

using detail::TraceContext;

namespace {

/// conv1d / conv2d / conv3d: resolves the padding mode and records nn.conv.
template <size_t D>
Tensor convolution(const char *name, const Tensor &input, const Tensor &weight,
                   const ConvFuncOptions<D> &options) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = t.valueOf(input, name, "input");
  mlir::Value w = t.valueOf(weight, name, "weight");
  mlir::Value b = options.bias().defined()
                      ? t.valueOf(options.bias(), name, "bias")
                      : mlir::Value();
  std::vector<int64_t> padding;
  if (auto *explicitPad = std::get_if<ExpandingArray<D>>(&options.padding())) {
    padding = explicitPad->vec();
  } else if (std::holds_alternative<kValid_t>(options.padding())) {
    padding.assign(D, 0);
  } else {
    // padding="same": total = dilation * (k - 1), the odd one on the high
    // side, as torch's _convolution_mode.
    for (size_t i = 0; i < D; ++i)
      if (options.stride()[i] != 1)
        t.fail(std::string(name) +
               ": padding='same' is not supported for "
               "strided convolutions (stride " +
               options.stride().repr() + ")");
    if (weight.dim() != static_cast<int64_t>(D) + 2)
      t.fail(std::string(name) + ": weight must be " + std::to_string(D + 2) +
             "-D, got " + shape_str(weight.shape()));
    std::vector<int64_t> lo, hi;
    for (size_t i = 0; i < D; ++i) {
      int64_t total = options.dilation()[i] * (weight.size(2 + i) - 1);
      lo.push_back(total / 2);
      hi.push_back(total - total / 2);
    }
    padding = lo;
    if (lo != hi)
      padding.insert(padding.end(), hi.begin(), hi.end());
  }
  if (input.dim() != static_cast<int64_t>(D) + 2)
    t.fail(std::string(name) + ": input must be " + std::to_string(D + 2) +
           "-D (batched), got " + shape_str(input.shape()));
  return t.emit<mlir::nn::ConvOp>(
      x.getType(), x, w, b,
      t.builder.getDenseI64ArrayAttr(options.stride().vec()),
      t.builder.getDenseI64ArrayAttr(padding),
      t.builder.getDenseI64ArrayAttr(options.dilation().vec()),
      t.builder.getI64IntegerAttr(options.groups()));
}

/// conv_transpose1d / 2d / 3d: records nn.conv_transpose.
template <size_t D>
Tensor transposedConvolution(const char *name, const Tensor &input,
                             const Tensor &weight,
                             const ConvTransposeFuncOptions<D> &options) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = t.valueOf(input, name, "input");
  mlir::Value w = t.valueOf(weight, name, "weight");
  mlir::Value b = options.bias().defined()
                      ? t.valueOf(options.bias(), name, "bias")
                      : mlir::Value();
  if (input.dim() != static_cast<int64_t>(D) + 2)
    t.fail(std::string(name) + ": input must be " + std::to_string(D + 2) +
           "-D (batched), got " + shape_str(input.shape()));
  auto &builder = t.builder;
  return t.emit<mlir::nn::ConvTransposeOp>(
      x.getType(), x, w, b,
      builder.getDenseI64ArrayAttr(options.stride().vec()),
      builder.getDenseI64ArrayAttr(options.padding().vec()),
      builder.getDenseI64ArrayAttr(options.output_padding().vec()),
      builder.getDenseI64ArrayAttr(options.dilation().vec()),
      builder.getI64IntegerAttr(options.groups()));
}

mlir::UnitAttr flag(TraceContext &t, bool on) {
  return on ? t.builder.getUnitAttr() : mlir::UnitAttr();
}

} // namespace

Tensor conv1d(const Tensor &input, const Tensor &weight,
              const Conv1dFuncOptions &options) {
  return convolution<1>("conv1d", input, weight, options);
}

Tensor conv2d(const Tensor &input, const Tensor &weight,
              const Conv2dFuncOptions &options) {
  return convolution<2>("conv2d", input, weight, options);
}

Tensor conv3d(const Tensor &input, const Tensor &weight,
              const Conv3dFuncOptions &options) {
  return convolution<3>("conv3d", input, weight, options);
}

Tensor conv_transpose1d(const Tensor &input, const Tensor &weight,
                        const ConvTranspose1dFuncOptions &options) {
  return transposedConvolution<1>("conv_transpose1d", input, weight, options);
}

Tensor conv_transpose2d(const Tensor &input, const Tensor &weight,
                        const ConvTranspose2dFuncOptions &options) {
  return transposedConvolution<2>("conv_transpose2d", input, weight, options);
}

Tensor conv_transpose3d(const Tensor &input, const Tensor &weight,
                        const ConvTranspose3dFuncOptions &options) {
  return transposedConvolution<3>("conv_transpose3d", input, weight, options);
}

namespace {

/// The input of a D-dimensional pooling op `name`, checked to be batched
/// ([N, C, spatial...]).
template <size_t D>
mlir::Value poolInput(TraceContext &t, const char *name, const Tensor &input) {
  mlir::Value x = t.valueOf(input, name, "input");
  if (input.dim() != static_cast<int64_t>(D) + 2)
    t.fail(std::string(name) + ": input must be " + std::to_string(D + 2) +
           "-D (batched), got " + shape_str(input.shape()));
  return x;
}

template <size_t D>
Tensor maxPool(const char *name, const Tensor &input,
               const MaxPoolOptions<D> &options) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = poolInput<D>(t, name, input);
  auto &builder = t.builder;
  return t.emit<mlir::nn::MaxPoolOp>(
      x.getType(), x, builder.getDenseI64ArrayAttr(options.kernel_size().vec()),
      builder.getDenseI64ArrayAttr(options.stride().vec()),
      builder.getDenseI64ArrayAttr(options.padding().vec()),
      builder.getDenseI64ArrayAttr(options.dilation().vec()),
      flag(t, options.ceil_mode()));
}

template <size_t D>
Tensor avgPool(const char *name, const Tensor &input,
               const AvgPoolOptions<D> &options) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = poolInput<D>(t, name, input);
  auto &builder = t.builder;
  mlir::IntegerAttr divisor =
      options.divisor_override()
          ? builder.getI64IntegerAttr(*options.divisor_override())
          : mlir::IntegerAttr();
  return t.emit<mlir::nn::AvgPoolOp>(
      x.getType(), x, builder.getDenseI64ArrayAttr(options.kernel_size().vec()),
      builder.getDenseI64ArrayAttr(options.stride().vec()),
      builder.getDenseI64ArrayAttr(options.padding().vec()),
      flag(t, options.ceil_mode()), flag(t, options.count_include_pad()),
      divisor);
}

template <size_t D>
Tensor adaptiveAvgPool(const char *name, const Tensor &input,
                       const AdaptiveAvgPoolOptions<D> &options) {
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = poolInput<D>(t, name, input);
  return t.emit<mlir::nn::AdaptiveAvgPoolOp>(
      x.getType(), x,
      t.builder.getDenseI64ArrayAttr(options.output_size().vec()));
}

} // namespace

Tensor max_pool1d(const Tensor &input, const MaxPool1dFuncOptions &options) {
  return maxPool<1>("max_pool1d", input, options);
}

Tensor max_pool2d(const Tensor &input, const MaxPool2dFuncOptions &options) {
  return maxPool<2>("max_pool2d", input, options);
}

Tensor max_pool3d(const Tensor &input, const MaxPool3dFuncOptions &options) {
  return maxPool<3>("max_pool3d", input, options);
}

Tensor avg_pool1d(const Tensor &input, const AvgPool1dFuncOptions &options) {
  return avgPool<1>("avg_pool1d", input, options);
}

Tensor avg_pool2d(const Tensor &input, const AvgPool2dFuncOptions &options) {
  return avgPool<2>("avg_pool2d", input, options);
}

Tensor avg_pool3d(const Tensor &input, const AvgPool3dFuncOptions &options) {
  return avgPool<3>("avg_pool3d", input, options);
}

Tensor adaptive_avg_pool1d(const Tensor &input,
                           const AdaptiveAvgPool1dFuncOptions &options) {
  return adaptiveAvgPool<1>("adaptive_avg_pool1d", input, options);
}

Tensor adaptive_avg_pool2d(const Tensor &input,
                           const AdaptiveAvgPool2dFuncOptions &options) {
  return adaptiveAvgPool<2>("adaptive_avg_pool2d", input, options);
}

Tensor adaptive_avg_pool3d(const Tensor &input,
                           const AdaptiveAvgPool3dFuncOptions &options) {
  return adaptiveAvgPool<3>("adaptive_avg_pool3d", input, options);
}

Tensor interpolate(const Tensor &input, const InterpolateFuncOptions &options) {
  const char *name = "interpolate";
  TraceContext &t = TraceContext::current(name);
  mlir::Value x = t.valueOf(input, name, "input");
  if (input.dim() != 4)
    t.fail("interpolate: only 4-D input [N, C, H, W] is supported, got " +
           shape_str(input.shape()));
  bool bilinear = options.mode() == InterpolateMode::bilinear;
  if (!bilinear && options.align_corners().has_value())
    t.fail("interpolate: align_corners option can only be set with the "
           "interpolating modes: linear | bilinear | bicubic | trilinear");
  if (options.size().has_value() == options.scale_factor().has_value())
    t.fail("interpolate: exactly one of size or scale_factor must be given");
  std::vector<int64_t> size;
  mlir::DenseF64ArrayAttr scales;
  if (options.size()) {
    size = *options.size();
    if (size.size() == 1)
      size.push_back(size[0]);
    if (size.size() != 2)
      t.fail("interpolate: size must have 1 or 2 values for a 4-D input");
  } else {
    std::vector<double> factors = *options.scale_factor();
    if (factors.size() == 1)
      factors.push_back(factors[0]);
    if (factors.size() != 2)
      t.fail("interpolate: scale_factor must have 1 or 2 values for a 4-D "
             "input");
    for (size_t i = 0; i < 2; ++i)
      size.push_back(static_cast<int64_t>(
          std::floor(static_cast<double>(input.size(2 + i)) * factors[i])));
    if (!options.recompute_scale_factor().value_or(false))
      scales = t.builder.getDenseF64ArrayAttr(factors);
  }
  return t.emit<mlir::nn::InterpolateOp>(
      x.getType(), x, t.builder.getDenseI64ArrayAttr(size),
      t.builder.getStringAttr(bilinear ? "bilinear" : "nearest"),
      flag(t, bilinear && options.align_corners().value_or(false)), scales);
}

} // namespace nn::functional
