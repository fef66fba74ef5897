//===- BatchNorm.h - BatchNorm1d, 2d and 3d ---------------------*- C++ -*-===//
#ifndef NN_MODULES_BATCHNORM_H
#define NN_MODULES_BATCHNORM_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Options/BatchNorm.h"

namespace nn {

/// What BatchNorm1d, 2d and 3d share: parameters, buffers (under
/// PyTorch's names), initialization, repr, and a forward that normalizes with
/// batch statistics while training (updating the running statistics and
/// num_batches_tracked in the compiled forward) and with the running ones in
/// eval. See
/// https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm2d.html
class BatchNormImplBase : public Module {
public:
  BatchNormImplBase(std::string name, const BatchNormOptions &options);

  /// running_mean = 0, running_var = 1, num_batches_tracked = 0.
  void reset_running_stats();
  /// reset_running_stats(), weight = 1, bias = 0.
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;

  BatchNormOptions options;
  Tensor weight;              // [num_features]; undefined unless affine
  Tensor bias;                // [num_features]; undefined unless affine
  Tensor running_mean;        // [num_features]; undefined unless tracking
  Tensor running_var;         // [num_features]; undefined unless tracking
  Tensor num_batches_tracked; // i64 scalar; undefined unless tracking

protected:
  /// Throws nn::Error (with the module path) for an input rank the layer
  /// does not take.
  virtual void check_input_dim(const Tensor &input) const = 0;
};

/// Over [N, C] or [N, C, L]:  BatchNorm1d bn(BatchNormOptions(64).eps(1e-3));
class BatchNorm1dImpl : public Cloneable<BatchNorm1dImpl, BatchNormImplBase> {
public:
  explicit BatchNorm1dImpl(const BatchNormOptions &options)
      : Cloneable("BatchNorm1d", options) {}
  explicit BatchNorm1dImpl(int64_t num_features)
      : BatchNorm1dImpl(BatchNormOptions(num_features)) {}

protected:
  void check_input_dim(const Tensor &input) const override;
};
NN_MODULE(BatchNorm1d);

/// Over [N, C, H, W]:  BatchNorm2d bn(32);
class BatchNorm2dImpl : public Cloneable<BatchNorm2dImpl, BatchNormImplBase> {
public:
  explicit BatchNorm2dImpl(const BatchNormOptions &options)
      : Cloneable("BatchNorm2d", options) {}
  explicit BatchNorm2dImpl(int64_t num_features)
      : BatchNorm2dImpl(BatchNormOptions(num_features)) {}

protected:
  void check_input_dim(const Tensor &input) const override;
};
NN_MODULE(BatchNorm2d);

/// Over [N, C, D, H, W]:  BatchNorm3d bn(16);
class BatchNorm3dImpl : public Cloneable<BatchNorm3dImpl, BatchNormImplBase> {
public:
  explicit BatchNorm3dImpl(const BatchNormOptions &options)
      : Cloneable("BatchNorm3d", options) {}
  explicit BatchNorm3dImpl(int64_t num_features)
      : BatchNorm3dImpl(BatchNormOptions(num_features)) {}

protected:
  void check_input_dim(const Tensor &input) const override;
};
NN_MODULE(BatchNorm3d);

} // namespace nn

#endif // NN_MODULES_BATCHNORM_H
