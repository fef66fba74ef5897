//===- Activation.h - Activation layers -------------------------*- C++ -*-===//
#ifndef NN_MODULES_ACTIVATION_H
#define NN_MODULES_ACTIVATION_H

#include "nn/Frontend/ModuleHolder.h"
#include "nn/Functional/Activation.h"

#include <cstdint>
#include <string>

namespace nn {

/// ReLU(ReLUOptions().inplace(true)), or ReLU(true). `inplace` is accepted
/// and printed as PyTorch prints it; in a traced graph it changes nothing
/// (forward's result is the same value either way).
struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}
  NN_ARG(bool, inplace);
};

/// max(x, 0). See https://pytorch.org/docs/stable/generated/torch.nn.ReLU.html
class ReLUImpl : public Cloneable<ReLUImpl> {
public:
  explicit ReLUImpl(const ReLUOptions &options_ = {})
      : Cloneable("ReLU"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  ReLUOptions options;
};
NN_MODULE(ReLU);

/// Stateless activation layers: the functional op, a name, and PyTorch's
/// repr. See
/// https://pytorch.org/docs/stable/nn.html#non-linear-activations-weighted-sum-nonlinearity

/// x · Φ(x). GELU(GELUOptions().approximate("tanh")).
struct GELUOptions {
  NN_ARG(std::string, approximate) = "none";
};
class GELUImpl : public Cloneable<GELUImpl> {
public:
  explicit GELUImpl(const GELUOptions &options_ = {})
      : Cloneable("GELU"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  GELUOptions options;
};
NN_MODULE(GELU);

/// SiLU(SiLUOptions().inplace(true)), or SiLU(true); `inplace` as
/// ReLUOptions'.
struct SiLUOptions {
  SiLUOptions(bool inplace = false) : inplace_(inplace) {}
  NN_ARG(bool, inplace);
};
/// x · sigmoid(x).
class SiLUImpl : public Cloneable<SiLUImpl> {
public:
  explicit SiLUImpl(const SiLUOptions &options_ = {})
      : Cloneable("SiLU"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  SiLUOptions options;
};
NN_MODULE(SiLU);

class SigmoidImpl : public Cloneable<SigmoidImpl> {
public:
  SigmoidImpl() : Cloneable("Sigmoid") {}
  Tensor forward(const Tensor &input);
};
NN_MODULE(Sigmoid);

class TanhImpl : public Cloneable<TanhImpl> {
public:
  TanhImpl() : Cloneable("Tanh") {}
  Tensor forward(const Tensor &input);
};
NN_MODULE(Tanh);

/// ReLU6(ReLU6Options().inplace(true)); `inplace` as ReLUOptions'.
struct ReLU6Options {
  ReLU6Options(bool inplace = false) : inplace_(inplace) {}
  NN_ARG(bool, inplace);
};

class ReLU6Impl : public Cloneable<ReLU6Impl> {
public:
  explicit ReLU6Impl(const ReLU6Options &options_ = {})
      : Cloneable("ReLU6"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  ReLU6Options options;
};
NN_MODULE(ReLU6);

struct LeakyReLUOptions {
  LeakyReLUOptions(double negative_slope = 0.01)
      : negative_slope_(negative_slope) {}
  NN_ARG(double, negative_slope);
  NN_ARG(bool, inplace) = false; // as ReLUOptions'
};
class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
public:
  explicit LeakyReLUImpl(const LeakyReLUOptions &options_ = {})
      : Cloneable("LeakyReLU"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  LeakyReLUOptions options;
};
NN_MODULE(LeakyReLU);

struct HardtanhOptions {
  NN_ARG(double, min_val) = -1.0;
  NN_ARG(double, max_val) = 1.0;
  NN_ARG(bool, inplace) = false; // as ReLUOptions'
};
class HardtanhImpl : public Cloneable<HardtanhImpl> {
public:
  explicit HardtanhImpl(const HardtanhOptions &options_ = {});
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  HardtanhOptions options;
};
NN_MODULE(Hardtanh);

/// Hardsigmoid and Hardswish (MobileNetV3). PyTorch prints them without
/// their inplace flag, and so does nn.
class HardsigmoidImpl : public Cloneable<HardsigmoidImpl> {
public:
  explicit HardsigmoidImpl(bool inplace = false)
      : Cloneable("Hardsigmoid"), inplace(inplace) {}
  Tensor forward(const Tensor &input);
  bool inplace;
};
NN_MODULE(Hardsigmoid);

class HardswishImpl : public Cloneable<HardswishImpl> {
public:
  explicit HardswishImpl(bool inplace = false)
      : Cloneable("Hardswish"), inplace(inplace) {}
  Tensor forward(const Tensor &input);
  bool inplace;
};
NN_MODULE(Hardswish);

/// ELU(ELUOptions().alpha(0.5).inplace(true)).
struct ELUOptions {
  NN_ARG(double, alpha) = 1.0;
  NN_ARG(bool, inplace) = false; // as ReLUOptions'
};

class ELUImpl : public Cloneable<ELUImpl> {
public:
  explicit ELUImpl(const ELUOptions &options_ = {})
      : Cloneable("ELU"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  ELUOptions options;
};
NN_MODULE(ELU);

/// PReLU(PReLUOptions().num_parameters(64).init(0.25)): a learned slope
/// for x < 0, one per channel or one for all.
struct PReLUOptions {
  NN_ARG(int64_t, num_parameters) = 1;
  NN_ARG(double, init) = 0.25;
};

/// See https://pytorch.org/docs/stable/generated/torch.nn.PReLU.html
class PReLUImpl : public Cloneable<PReLUImpl> {
public:
  explicit PReLUImpl(const PReLUOptions &options_ = {});
  /// PyTorch's initialization: every slope `init`.
  void reset_parameters();
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  PReLUOptions options;
  Tensor weight; // [num_parameters]
};
NN_MODULE(PReLU);

/// SELU(SELUOptions().inplace(true)); `inplace` as ReLUOptions'.
struct SELUOptions {
  SELUOptions(bool inplace = false) : inplace_(inplace) {}
  NN_ARG(bool, inplace);
};
class SELUImpl : public Cloneable<SELUImpl> {
public:
  explicit SELUImpl(const SELUOptions &options_ = {})
      : Cloneable("SELU"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  SELUOptions options;
};
NN_MODULE(SELU);

/// CELU(CELUOptions().alpha(0.5)).
struct CELUOptions {
  NN_ARG(double, alpha) = 1.0;
  NN_ARG(bool, inplace) = false; // as ReLUOptions'
};
class CELUImpl : public Cloneable<CELUImpl> {
public:
  explicit CELUImpl(const CELUOptions &options_ = {});
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  CELUOptions options;
};
NN_MODULE(CELU);

/// Softplus(SoftplusOptions().beta(2).threshold(10)). Integral values print
/// as Python ints, as PyTorch prints its defaults (beta=1, threshold=20).
struct SoftplusOptions {
  NN_ARG(double, beta) = 1.0;
  NN_ARG(double, threshold) = 20.0;
};
class SoftplusImpl : public Cloneable<SoftplusImpl> {
public:
  explicit SoftplusImpl(const SoftplusOptions &options_ = {})
      : Cloneable("Softplus"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  SoftplusOptions options;
};
NN_MODULE(Softplus);

/// Mish(MishOptions().inplace(true)); `inplace` as ReLUOptions'.
struct MishOptions {
  MishOptions(bool inplace = false) : inplace_(inplace) {}
  NN_ARG(bool, inplace);
};
class MishImpl : public Cloneable<MishImpl> {
public:
  explicit MishImpl(const MishOptions &options_ = {})
      : Cloneable("Mish"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  MishOptions options;
};
NN_MODULE(Mish);

class LogSigmoidImpl : public Cloneable<LogSigmoidImpl> {
public:
  LogSigmoidImpl() : Cloneable("LogSigmoid") {}
  Tensor forward(const Tensor &input);
};
NN_MODULE(LogSigmoid);

class SoftsignImpl : public Cloneable<SoftsignImpl> {
public:
  SoftsignImpl() : Cloneable("Softsign") {}
  Tensor forward(const Tensor &input);
};
NN_MODULE(Softsign);

class TanhshrinkImpl : public Cloneable<TanhshrinkImpl> {
public:
  TanhshrinkImpl() : Cloneable("Tanhshrink") {}
  Tensor forward(const Tensor &input);
};
NN_MODULE(Tanhshrink);

/// Hardshrink(HardshrinkOptions(1.5)) and Softshrink alike.
struct HardshrinkOptions {
  HardshrinkOptions(double lambda = 0.5) : lambda_(lambda) {}
  NN_ARG(double, lambda);
};
class HardshrinkImpl : public Cloneable<HardshrinkImpl> {
public:
  explicit HardshrinkImpl(const HardshrinkOptions &options_ = {})
      : Cloneable("Hardshrink"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  HardshrinkOptions options;
};
NN_MODULE(Hardshrink);

using SoftshrinkOptions = HardshrinkOptions;
class SoftshrinkImpl : public Cloneable<SoftshrinkImpl> {
public:
  explicit SoftshrinkImpl(const SoftshrinkOptions &options_ = {});
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  SoftshrinkOptions options;
};
NN_MODULE(Softshrink);

/// Threshold(ThresholdOptions(0.1, 20)): `value` where x <= threshold.
/// Integral values print as Python ints, as Softplus's.
struct ThresholdOptions {
  ThresholdOptions(double threshold, double value)
      : threshold_(threshold), value_(value) {}
  NN_ARG(double, threshold);
  NN_ARG(double, value);
  NN_ARG(bool, inplace) = false; // as ReLUOptions'
};
class ThresholdImpl : public Cloneable<ThresholdImpl> {
public:
  explicit ThresholdImpl(const ThresholdOptions &options_)
      : Cloneable("Threshold"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  ThresholdOptions options;
};
NN_MODULE(Threshold);

/// GLU(GLUOptions(1)): halves `dim` (default -1).
struct GLUOptions {
  GLUOptions(int64_t dim = -1) : dim_(dim) {}
  NN_ARG(int64_t, dim);
};
class GLUImpl : public Cloneable<GLUImpl> {
public:
  explicit GLUImpl(const GLUOptions &options_ = {})
      : Cloneable("GLU"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  GLUOptions options;
};
NN_MODULE(GLU);

/// Softmax(1): normalizes along `dim`.
struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}
  NN_ARG(int64_t, dim);
};
class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
public:
  explicit SoftmaxImpl(const SoftmaxOptions &options_)
      : Cloneable("Softmax"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  SoftmaxOptions options;
};
NN_MODULE(Softmax);

class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
public:
  explicit LogSoftmaxImpl(const SoftmaxOptions &options_)
      : Cloneable("LogSoftmax"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  SoftmaxOptions options;
};
NN_MODULE(LogSoftmax);

/// Softmin(1): softmax of −x along `dim`.
class SoftminImpl : public Cloneable<SoftminImpl> {
public:
  explicit SoftminImpl(const SoftmaxOptions &options_)
      : Cloneable("Softmin"), options(options_) {}
  Tensor forward(const Tensor &input);
  std::string extra_repr() const override;
  SoftmaxOptions options;
};
NN_MODULE(Softmin);

} // namespace nn

#endif // NN_MODULES_ACTIVATION_H
