//===- SGD.h - Stochastic gradient descent ----------------------*- C++ -*-===//
//
// torch.optim.SGD (torch/optim/sgd.py's single-tensor loop is the spec):
//
//   nn::optim::SGD opt(model->parameters(),
//                      nn::optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-4));
//
// See https://pytorch.org/docs/stable/generated/torch.optim.SGD.html
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPTIM_SGD_H
#define NN_OPTIM_SGD_H

#include "nn/Frontend/Arg.h"
#include "nn/Optim/Optimizer.h"

namespace nn::optim {

struct SGDOptions : OptimizerOptions {
  explicit SGDOptions(double lr) : lr_(lr) {}
  NN_ARG(double, lr);
  NN_ARG(double, momentum) = 0;
  NN_ARG(double, dampening) = 0;
  NN_ARG(double, weight_decay) = 0;
  NN_ARG(bool, nesterov) = false;
  NN_ARG(bool, maximize) = false;

public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<SGDOptions>(*this);
  }
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  std::vector<std::pair<std::string, double>> values() const override {
    return {{"lr", lr()},
            {"momentum", momentum()},
            {"dampening", dampening()},
            {"weight_decay", weight_decay()},
            {"nesterov", double(nesterov())},
            {"maximize", double(maximize())}};
  }
  bool set_value(const std::string &name, double value) override;
};

class SGD : public Optimizer {
public:
  SGD(std::vector<Tensor> params, const SGDOptions &defaults);
  SGD(std::vector<OptimizerParamGroup> groups, const SGDOptions &defaults);

protected:
  std::vector<std::string>
  state_names(const OptimizerOptions &options) const override;
  std::vector<std::pair<std::string, double>>
  scalars(const OptimizerOptions &options) const override;
  std::string structure(const OptimizerOptions &options) const override;
  void trace_update(const OptimizerOptions &options,
                    ParamUpdate &update) const override;
};

} // namespace nn::optim

#endif // NN_OPTIM_SGD_H
