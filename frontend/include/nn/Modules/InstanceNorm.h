//===- InstanceNorm.h - InstanceNorm1d, 2d and 3d ---------------*- C++ -*-===//
//
// Each (sample, channel) normalized over its own elements, as PyTorch's
// InstanceNorm layers (style transfer, image generators): F::instance_norm
// with the layer's affine parameters and, when it tracks them, running
// statistics ("running_mean", "running_var" and "num_batches_tracked"
// buffers, the last never advanced, as in PyTorch). In eval, a layer that
// tracks normalizes with them. Unbatched input (one dim fewer) is taken as a
// batch of one.
//
//   InstanceNorm2d norm(InstanceNormOptions(64).affine(true));
//
//===----------------------------------------------------------------------===//
#ifndef NN_MODULES_INSTANCENORM_H
#define NN_MODULES_INSTANCENORM_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/InstanceNorm.h"

namespace nn {

class InstanceNormImplBase : public Module {
public:
  InstanceNormImplBase(std::string name, int64_t dims,
                       const InstanceNormOptions &options);

  /// running_mean = 0, running_var = 1, num_batches_tracked = 0.
  void reset_running_stats();
  /// reset_running_stats(), weight = 1, bias = 0.
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  InstanceNormOptions options;
  Tensor weight;              // [num_features]; undefined unless affine
  Tensor bias;                // [num_features]; undefined unless affine
  Tensor running_mean;        // [num_features]; undefined unless tracking
  Tensor running_var;         // [num_features]; undefined unless tracking
  Tensor num_batches_tracked; // i64 scalar; undefined unless tracking

private:
  int64_t dims; // the spatial dims: 1, 2 or 3
};

#define NN_DECLARE_INSTANCE_NORM(N)                                            \
  class InstanceNorm##N##dImpl                                                 \
      : public Cloneable<InstanceNorm##N##dImpl, InstanceNormImplBase> {       \
  public:                                                                      \
    explicit InstanceNorm##N##dImpl(const InstanceNormOptions &options)        \
        : Cloneable("InstanceNorm" #N "d", N, options) {}                      \
    explicit InstanceNorm##N##dImpl(int64_t num_features)                      \
        : InstanceNorm##N##dImpl(InstanceNormOptions(num_features)) {}         \
  };                                                                           \
  NN_MODULE(InstanceNorm##N##d)

NN_DECLARE_INSTANCE_NORM(1);
NN_DECLARE_INSTANCE_NORM(2);
NN_DECLARE_INSTANCE_NORM(3);
#undef NN_DECLARE_INSTANCE_NORM

} // namespace nn

#endif // NN_MODULES_INSTANCENORM_H
