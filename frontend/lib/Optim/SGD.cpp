//===- SGD.cpp - torch.optim.SGD, compiled --------------------------------===//
//
// The single-tensor loop of torch/optim/sgd.py, per parameter:
//
//   d_p = -grad if maximize else grad
//   if weight_decay != 0: d_p = d_p + weight_decay * param
//   if momentum != 0:
//     buf = clone(d_p) on the first step, else buf * momentum + (1 - dampening)
//     * d_p d_p = d_p + momentum * buf if nesterov else buf
//   param = param - lr * d_p
//
// The compiled update counts the steps itself (ParamUpdate::step) and
// picks the first step's clone with it, so one compiled update serves every
// step and needs no per-step input.
//
//===----------------------------------------------------------------------===//

#include "nn/Optim/SGD.h"

#include "nn/Functional.h"

namespace nn::optim {

namespace F = functional;

SGD::SGD(std::vector<Tensor> params, const SGDOptions &defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(
              std::move(params))},
          defaults) {}

SGD::SGD(std::vector<OptimizerParamGroup> groups, const SGDOptions &defaults)
    : Optimizer(std::move(groups), defaults.clone()) {
  for (const OptimizerParamGroup &group : param_groups()) {
    const auto &o = static_cast<const SGDOptions &>(group.options());
    if (o.lr() < 0 || o.momentum() < 0 || o.weight_decay() < 0)
      throw Error("SGD: lr, momentum and weight_decay must be >= 0, got " +
                  std::to_string(o.lr()) + ", " + std::to_string(o.momentum()) +
                  ", " + std::to_string(o.weight_decay()));
    if (o.nesterov() && (o.momentum() <= 0 || o.dampening() != 0))
      throw Error("SGD: nesterov momentum requires a momentum and zero "
                  "dampening");
  }
}

bool SGDOptions::set_value(const std::string &name, double value) {
  if (name == "lr")
    lr(value);
  else if (name == "momentum")
    momentum(value);
  else if (name == "dampening")
    dampening(value);
  else if (name == "weight_decay")
    weight_decay(value);
  else if (name == "nesterov")
    nesterov(value != 0);
  else if (name == "maximize")
    maximize(value != 0);
  else
    return false;
  return true;
}

static const SGDOptions &sgd(const OptimizerOptions &options) {
  return static_cast<const SGDOptions &>(options);
}

std::vector<std::string>
SGD::state_names(const OptimizerOptions &options) const {
  if (sgd(options).momentum() != 0)
    return {"momentum_buffer"};
  return {};
}

std::vector<std::pair<std::string, double>>
SGD::scalars(const OptimizerOptions &options) const {
  const SGDOptions &o = sgd(options);
  return {{"lr", o.lr()},
          {"weight_decay", o.weight_decay()},
          {"momentum", o.momentum()},
          {"one_minus_dampening", 1 - o.dampening()}};
}

std::string SGD::structure(const OptimizerOptions &options) const {
  const SGDOptions &o = sgd(options);
  return std::string("sgd") + (o.momentum() != 0 ? "+momentum" : "") +
         (o.weight_decay() != 0 ? "+decay" : "") +
         (o.nesterov() ? "+nesterov" : "") + (o.maximize() ? "+maximize" : "");
}

void SGD::trace_update(const OptimizerOptions &options, ParamUpdate &u) const {
  const SGDOptions &o = sgd(options);
  auto &s = u.scalars;
  Tensor d_p = o.maximize() ? -u.grad : u.grad;
  if (o.weight_decay() != 0)
    d_p = d_p + s["weight_decay"] * u.param;
  if (o.momentum() != 0) {
    Tensor &buf = u.state.at("momentum_buffer");
    Tensor next =
        F::where(F::lt(u.step, 1.5), d_p,
                 buf * s["momentum"] + s["one_minus_dampening"] * d_p);
    F::assign_buffer(buf, next);
    d_p = o.nesterov() ? d_p + s["momentum"] * next : next;
  }
  F::assign_buffer(u.param, u.param - s["lr"] * d_p);
}

} // namespace nn::optim
