//===- Adam.h - Adam and AdamW ----------------------------------*- C++ -*-===//
//
// torch.optim.Adam and torch.optim.AdamW (torch/optim/adam.py and
// adamw.py's single-tensor loops are the spec). AdamW decays the weights
// themselves (p *= 1 - lr·weight_decay) instead of adding weight_decay·p to
// the gradient; its default weight_decay is 0.01.
//
//   nn::optim::AdamW opt(model->parameters(),
//                        nn::optim::AdamWOptions(1e-3).weight_decay(0.05));
//
// See https://pytorch.org/docs/stable/generated/torch.optim.Adam.html
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPTIM_ADAM_H
#define NN_OPTIM_ADAM_H

#include "nn/Frontend/Arg.h"
#include "nn/Optim/Optimizer.h"

#include <tuple>

namespace nn::optim {

/// (beta1, beta2), as libtorch spells them.
using AdamBetas = std::tuple<double, double>;

struct AdamOptions : OptimizerOptions {
  explicit AdamOptions(double lr = 1e-3) : lr_(lr) {}
  NN_ARG(double, lr);
  NN_ARG(AdamBetas, betas) = AdamBetas(0.9, 0.999);
  NN_ARG(double, eps) = 1e-8;
  NN_ARG(double, weight_decay) = 0;
  NN_ARG(bool, amsgrad) = false;
  NN_ARG(bool, maximize) = false;

public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<AdamOptions>(*this);
  }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string &name, double value) override;
};

struct AdamWOptions : OptimizerOptions {
  explicit AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  NN_ARG(double, lr);
  NN_ARG(AdamBetas, betas) = AdamBetas(0.9, 0.999);
  NN_ARG(double, eps) = 1e-8;
  NN_ARG(double, weight_decay) = 1e-2;
  NN_ARG(bool, amsgrad) = false;
  NN_ARG(bool, maximize) = false;

public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<AdamWOptions>(*this);
  }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::vector<std::pair<std::string, double>> values() const override;
  bool set_value(const std::string &name, double value) override;
};

class Adam : public Optimizer {
public:
  Adam(std::vector<Tensor> params, const AdamOptions &defaults);
  Adam(std::vector<OptimizerParamGroup> groups, const AdamOptions &defaults);

protected:
  /// AdamW's constructors.
  Adam(std::vector<OptimizerParamGroup> groups,
       std::unique_ptr<OptimizerOptions> defaults, bool decoupled);

  std::vector<std::string>
  state_names(const OptimizerOptions &options) const override;
  std::vector<std::pair<std::string, double>>
  scalars(const OptimizerOptions &options) const override;
  std::string structure(const OptimizerOptions &options) const override;
  void trace_update(const OptimizerOptions &options,
                    ParamUpdate &update) const override;

private:
  bool decoupled_ = false; // AdamW
};

class AdamW : public Adam {
public:
  AdamW(std::vector<Tensor> params, const AdamWOptions &defaults);
  AdamW(std::vector<OptimizerParamGroup> groups, const AdamWOptions &defaults);
};

} // namespace nn::optim

#endif // NN_OPTIM_ADAM_H
