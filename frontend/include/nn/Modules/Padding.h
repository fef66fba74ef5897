//===- Padding.h - Padding layers -------------------------------*- C++ -*-===//
//
// PyTorch's padding layers over the last D dimensions: F::pad with the
// layer's mode, printed as PyTorch 1.13 prints them.
//
//   ZeroPad2d pad(1);                                  // all four sides
//   ConstantPad2d fill(ConstantPad2dOptions({1, 1, 2, 0}, 3.5));
//   ReflectionPad2d mirror(ReflectionPad2dOptions({1, 1, 2, 0}));
//   ReplicationPad1d edge(2);
//
//===----------------------------------------------------------------------===//
#ifndef NN_MODULES_PADDING_H
#define NN_MODULES_PADDING_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/Convolution.h"

#include <string>

namespace nn {

/// (left, right[, top, bottom[, front, back]]): one int pads every side.
template <size_t D> struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<2 * D> padding, double value)
      : padding_(padding), value_(value) {}
  NN_ARG(ExpandingArray<2 * D>, padding);
  NN_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

template <size_t D> struct EdgePadOptions {
  EdgePadOptions(ExpandingArray<2 * D> padding) : padding_(padding) {}
  NN_ARG(ExpandingArray<2 * D>, padding);
};
template <size_t D> using ReflectionPadOptions = EdgePadOptions<D>;
template <size_t D> using ReplicationPadOptions = EdgePadOptions<D>;
using ReflectionPad1dOptions = EdgePadOptions<1>;
using ReflectionPad2dOptions = EdgePadOptions<2>;
using ReflectionPad3dOptions = EdgePadOptions<3>;
using ReplicationPad1dOptions = EdgePadOptions<1>;
using ReplicationPad2dOptions = EdgePadOptions<2>;
using ReplicationPad3dOptions = EdgePadOptions<3>;

/// ConstantPad{1,2,3}d and ZeroPad2d.
template <size_t D> class ConstantPadImpl : public Module {
public:
  explicit ConstantPadImpl(const ConstantPadOptions<D> &options)
      : ConstantPadImpl("ConstantPad" + std::to_string(D) + "d", options) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  ConstantPadOptions<D> options;

protected:
  ConstantPadImpl(std::string name, const ConstantPadOptions<D> &options)
      : Module(std::move(name)), options(options) {}
};

/// ReflectionPad{1,2,3}d ("reflect") and ReplicationPad{1,2,3}d
/// ("replicate").
template <size_t D> class EdgePadImpl : public Module {
public:
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  EdgePadOptions<D> options;

protected:
  EdgePadImpl(std::string name, std::string mode,
              const EdgePadOptions<D> &options)
      : Module(std::move(name)), options(options), mode_(std::move(mode)) {}

private:
  std::string mode_;
};

#define NN_CONSTANT_PAD(Name, D)                                               \
  class Name##Impl : public Cloneable<Name##Impl, ConstantPadImpl<D>> {        \
  public:                                                                      \
    using Cloneable::Cloneable;                                                \
  };                                                                           \
  NN_MODULE(Name)
NN_CONSTANT_PAD(ConstantPad1d, 1);
NN_CONSTANT_PAD(ConstantPad2d, 2);
NN_CONSTANT_PAD(ConstantPad3d, 3);
#undef NN_CONSTANT_PAD

/// ConstantPad2d with 0, printed without the value.
class ZeroPad2dImpl : public Cloneable<ZeroPad2dImpl, ConstantPadImpl<2>> {
public:
  explicit ZeroPad2dImpl(ExpandingArray<4> padding)
      : Cloneable("ZeroPad2d", ConstantPadOptions<2>(padding, 0.0)) {}
  std::string extra_repr() const override { return options.padding().repr(); }
};
NN_MODULE(ZeroPad2d);

#define NN_EDGE_PAD(Name, D, mode)                                             \
  class Name##Impl : public Cloneable<Name##Impl, EdgePadImpl<D>> {            \
  public:                                                                      \
    explicit Name##Impl(const EdgePadOptions<D> &options)                      \
        : Cloneable(#Name, mode, options) {}                                   \
    explicit Name##Impl(ExpandingArray<2 * D> padding)                         \
        : Name##Impl(EdgePadOptions<D>(padding)) {}                            \
  };                                                                           \
  NN_MODULE(Name)
NN_EDGE_PAD(ReflectionPad1d, 1, "reflect");
NN_EDGE_PAD(ReflectionPad2d, 2, "reflect");
NN_EDGE_PAD(ReflectionPad3d, 3, "reflect");
NN_EDGE_PAD(ReplicationPad1d, 1, "replicate");
NN_EDGE_PAD(ReplicationPad2d, 2, "replicate");
NN_EDGE_PAD(ReplicationPad3d, 3, "replicate");
#undef NN_EDGE_PAD

} // namespace nn

#endif // NN_MODULES_PADDING_H
