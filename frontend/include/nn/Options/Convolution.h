//===- Convolution.h - Options of convolution, pooling and resampling -*- C++
//-*-===//
//
// Option structs for the convolution, pooling and upsampling layers and their
// functional forms, as libtorch's nn/options/{conv,pooling,upsampling}.h:
//   Conv2d conv(Conv2dOptions(3, 32, 3).padding(1).bias(false));
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(nn::kSame));
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2));
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPTIONS_CONVOLUTION_H
#define NN_OPTIONS_CONVOLUTION_H

#include "nn/Frontend/Arg.h"
#include "nn/Runtime/Error.h"
#include "nn/Runtime/Tensor.h"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace nn {

/// D integers given as one (repeated) or D values, as libtorch's
/// ExpandingArray: stride(2) or stride({2, 1}).
template <size_t D> class ExpandingArray {
public:
  ExpandingArray(int64_t value) : scalar_(true) { values_.fill(value); }
  ExpandingArray(std::initializer_list<int64_t> values)
      : ExpandingArray(std::vector<int64_t>(values)) {}
  ExpandingArray(const std::vector<int64_t> &values) {
    if (values.size() != D)
      throw Error("expected " + std::to_string(D) + " values, got " +
                  std::to_string(values.size()));
    for (size_t i = 0; i < D; ++i)
      values_[i] = values[i];
  }
  int64_t operator[](size_t i) const { return values_[i]; }
  /// Whether it was given as one int (2) rather than a list ({2, 2}): the
  /// pooling layers print what they were given, as PyTorch does.
  bool is_scalar() const { return scalar_; }
  std::vector<int64_t> vec() const {
    return std::vector<int64_t>(values_.begin(), values_.end());
  }
  bool operator==(const ExpandingArray &other) const {
    return values_ == other.values_;
  }
  /// As Python prints the argument: "2" when given as one int, else the
  /// tuple.
  std::string int_or_tuple() const {
    return scalar_ ? std::to_string(values_[0]) : repr();
  }
  /// Python's tuple repr: "(3, 3)", "(3,)".
  std::string repr() const {
    std::string s = "(";
    for (size_t i = 0; i < D; ++i)
      s += (i ? ", " : "") + std::to_string(values_[i]);
    return s + (D == 1 ? ",)" : ")");
  }

private:
  std::array<int64_t, D> values_;
  bool scalar_ = false;
};

/// padding="valid" / padding="same", as torch::kValid / torch::kSame.
struct kValid_t {};
struct kSame_t {};
inline constexpr kValid_t kValid{};
inline constexpr kSame_t kSame{};

template <size_t D>
using ConvPadding = std::variant<ExpandingArray<D>, kValid_t, kSame_t>;

/// Declares `name({a, b})` next to an NN_ARG of type ConvPadding or
/// ExpandingArray, which a braced list cannot reach through the variant.
#define NN_LIST_SETTER(name, T)                                                \
public:                                                                        \
  inline auto name(std::initializer_list<int64_t> list)->decltype(*this) {     \
    this->name##_ = T(list);                                                   \
    return *this;                                                              \
  }                                                                            \
  using nn_list_setter_##name = void

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1))
template <size_t D> struct ConvFuncOptions {
  NN_ARG(Tensor, bias);
  NN_ARG(ExpandingArray<D>, stride) = 1;
  NN_ARG(ConvPadding<D>, padding) = ExpandingArray<D>(0);
  NN_LIST_SETTER(padding, ExpandingArray<D>);
  NN_ARG(ExpandingArray<D>, dilation) = 1;
  NN_ARG(int64_t, groups) = 1;
};

/// Conv2d(Conv2dOptions(3, 32, 3).stride(2).padding(1).bias(false))
template <size_t D> struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels,
              ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels),
        kernel_size_(kernel_size) {}
  NN_ARG(int64_t, in_channels);
  NN_ARG(int64_t, out_channels);
  NN_ARG(ExpandingArray<D>, kernel_size);
  NN_ARG(ExpandingArray<D>, stride) = 1;
  NN_ARG(ConvPadding<D>, padding) = ExpandingArray<D>(0);
  NN_LIST_SETTER(padding, ExpandingArray<D>);
  NN_ARG(ExpandingArray<D>, dilation) = 1;
  NN_ARG(int64_t, groups) = 1;
  NN_ARG(bool, bias) = true;
};

using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

/// F::conv_transpose2d(x, w, F::ConvTranspose2dFuncOptions().stride(2))
template <size_t D> struct ConvTransposeFuncOptions {
  NN_ARG(Tensor, bias);
  NN_ARG(ExpandingArray<D>, stride) = 1;
  NN_ARG(ExpandingArray<D>, padding) = 0;
  NN_ARG(ExpandingArray<D>, output_padding) = 0;
  NN_ARG(int64_t, groups) = 1;
  NN_ARG(ExpandingArray<D>, dilation) = 1;
};

/// ConvTranspose2d(ConvTranspose2dOptions(16, 8,
/// 3).stride(2).output_padding(1))
template <size_t D> struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels,
                       ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels),
        kernel_size_(kernel_size) {}
  NN_ARG(int64_t, in_channels);
  NN_ARG(int64_t, out_channels);
  NN_ARG(ExpandingArray<D>, kernel_size);
  NN_ARG(ExpandingArray<D>, stride) = 1;
  NN_ARG(ExpandingArray<D>, padding) = 0;
  NN_ARG(ExpandingArray<D>, output_padding) = 0;
  NN_ARG(int64_t, groups) = 1;
  NN_ARG(bool, bias) = true;
  NN_ARG(ExpandingArray<D>, dilation) = 1;
};

using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// MaxPool1d / 2d / 3d: MaxPool2d(MaxPool2dOptions(3).stride(2)); stride
/// defaults to kernel_size.
template <size_t D> struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  NN_ARG(ExpandingArray<D>, kernel_size);
  NN_ARG(ExpandingArray<D>, stride);
  NN_ARG(ExpandingArray<D>, padding) = 0;
  NN_ARG(ExpandingArray<D>, dilation) = 1;
  NN_ARG(bool, ceil_mode) = false;
};

/// AvgPool1d / 2d / 3d:
/// AvgPool2d(AvgPool2dOptions(3).stride(2).count_include_pad(false))
template <size_t D> struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  NN_ARG(ExpandingArray<D>, kernel_size);
  NN_ARG(ExpandingArray<D>, stride);
  NN_ARG(ExpandingArray<D>, padding) = 0;
  NN_ARG(bool, ceil_mode) = false;
  NN_ARG(bool, count_include_pad) = true;
  NN_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};

/// AdaptiveAvgPool1d / 2d / 3d: AdaptiveAvgPool2d(AdaptiveAvgPool2dOptions({7,
/// 7}))
template <size_t D> struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(ExpandingArray<D> output_size)
      : output_size_(output_size) {}
  NN_ARG(ExpandingArray<D>, output_size);
};

using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<2>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<3>;

//===----------------------------------------------------------------------===//
// Resampling
//===----------------------------------------------------------------------===//

/// The interpolation modes nn supports (torch::kNearest, torch::kBilinear).
enum class InterpolateMode { nearest, bilinear };
inline constexpr InterpolateMode kNearest = InterpolateMode::nearest;
inline constexpr InterpolateMode kBilinear = InterpolateMode::bilinear;

/// F::interpolate(x, F::InterpolateFuncOptions().scale_factor({2, 2})
///                       .mode(nn::kBilinear).align_corners(false))
/// Exactly one of size and scale_factor; one value per spatial dimension.
struct InterpolateFuncOptions {
  NN_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  NN_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  NN_ARG(InterpolateMode, mode) = InterpolateMode::nearest;
  NN_ARG(std::optional<bool>, align_corners) = std::nullopt;
  /// When true, source coordinates come from the size ratio rather than
  /// the given scale factors (as PyTorch's recompute_scale_factor).
  NN_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
};

/// Upsample(UpsampleOptions().scale_factor({2, 2}).mode(nn::kNearest))
struct UpsampleOptions {
  NN_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  NN_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  NN_ARG(InterpolateMode, mode) = InterpolateMode::nearest;
  NN_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using nn::InterpolateFuncOptions;
} // namespace functional

} // namespace nn

#endif // NN_OPTIONS_CONVOLUTION_H
