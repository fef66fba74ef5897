//===- Adam.cpp - torch.optim.Adam and AdamW, compiled --------------------===//
//
// The single-tensor loops of torch/optim/adam.py and adamw.py, per
// parameter (t is the parameter's step count, from 1):
//
//   grad = -grad if maximize
//   AdamW: param = param * (1 - lr * weight_decay)
//   Adam:  grad = grad + weight_decay * param   (when weight_decay != 0)
//   exp_avg = exp_avg.lerp(grad, 1 - beta1)
//   exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * grad * grad
//   step_size = lr / (1 - beta1^t); bias_correction2_sqrt = sqrt(1 - beta2^t)
//   amsgrad: max_exp_avg_sq = maximum(max_exp_avg_sq, exp_avg_sq), read below
//   denom = sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
//   param = param - step_size * exp_avg / denom
//
// The scalars derived from the options alone are computed here, in double,
// as Python does, and passed to the compiled update; those derived from t
// the update computes in the parameter's dtype from the step count it keeps
// (as PyTorch's capturable Adam does on the GPU), so that one compiled
// update serves every step without a per-step input.
//
//===----------------------------------------------------------------------===//

#include "nn/Optim/Adam.h"

#include "nn/Functional.h"

namespace nn::optim {

namespace F = functional;

namespace {

/// Adam's and AdamW's options, which have the same fields.
struct Config {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize;
};

template <typename Options> Config configOf(const Options &o) {
  return {o.lr(),      std::get<0>(o.betas()), std::get<1>(o.betas()),
          o.eps(),     o.weight_decay(),       o.amsgrad(),
          o.maximize()};
}

Config configOf(const OptimizerOptions &options) {
  if (auto *adamw = dynamic_cast<const AdamWOptions *>(&options))
    return configOf(*adamw);
  return configOf(static_cast<const AdamOptions &>(options));
}

void check(const Config &c, const char *name) {
  if (!(c.lr >= 0 && c.eps >= 0 && c.weight_decay >= 0 && c.beta1 >= 0 &&
        c.beta1 < 1 && c.beta2 >= 0 && c.beta2 < 1))
    throw Error(std::string(name) +
                ": needs lr, eps, weight_decay >= 0 and betas in [0, 1), got "
                "lr " +
                std::to_string(c.lr) + ", betas (" + std::to_string(c.beta1) +
                ", " + std::to_string(c.beta2) + "), eps " +
                std::to_string(c.eps) + ", weight_decay " +
                std::to_string(c.weight_decay));
}

} // namespace

/// Adam's and AdamW's options by name.
template <typename Options>
static std::vector<std::pair<std::string, double>>
adamValues(const Options &o) {
  return {{"lr", o.lr()},
          {"beta1", std::get<0>(o.betas())},
          {"beta2", std::get<1>(o.betas())},
          {"eps", o.eps()},
          {"weight_decay", o.weight_decay()},
          {"amsgrad", double(o.amsgrad())},
          {"maximize", double(o.maximize())}};
}

template <typename Options>
static bool setAdamValue(Options &o, const std::string &name, double value) {
  if (name == "lr")
    o.lr(value);
  else if (name == "beta1")
    o.betas(AdamBetas(value, std::get<1>(o.betas())));
  else if (name == "beta2")
    o.betas(AdamBetas(std::get<0>(o.betas()), value));
  else if (name == "eps")
    o.eps(value);
  else if (name == "weight_decay")
    o.weight_decay(value);
  else if (name == "amsgrad")
    o.amsgrad(value != 0);
  else if (name == "maximize")
    o.maximize(value != 0);
  else
    return false;
  return true;
}

std::vector<std::pair<std::string, double>> AdamOptions::values() const {
  return adamValues(*this);
}
bool AdamOptions::set_value(const std::string &name, double value) {
  return setAdamValue(*this, name, value);
}
std::vector<std::pair<std::string, double>> AdamWOptions::values() const {
  return adamValues(*this);
}
bool AdamWOptions::set_value(const std::string &name, double value) {
  return setAdamValue(*this, name, value);
}

Adam::Adam(std::vector<Tensor> params, const AdamOptions &defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(
               std::move(params))},
           defaults) {}

Adam::Adam(std::vector<OptimizerParamGroup> groups, const AdamOptions &defaults)
    : Adam(std::move(groups), defaults.clone(), /*decoupled=*/false) {}

Adam::Adam(std::vector<OptimizerParamGroup> groups,
           std::unique_ptr<OptimizerOptions> defaults, bool decoupled)
    : Optimizer(std::move(groups), std::move(defaults)), decoupled_(decoupled) {
  for (const OptimizerParamGroup &group : param_groups())
    check(configOf(group.options()), decoupled ? "AdamW" : "Adam");
}

AdamW::AdamW(std::vector<Tensor> params, const AdamWOptions &defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(
                std::move(params))},
            defaults) {}

AdamW::AdamW(std::vector<OptimizerParamGroup> groups,
             const AdamWOptions &defaults)
    : Adam(std::move(groups), defaults.clone(), /*decoupled=*/true) {}

std::vector<std::string>
Adam::state_names(const OptimizerOptions &options) const {
  if (configOf(options).amsgrad)
    return {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  return {"exp_avg", "exp_avg_sq"};
}

std::vector<std::pair<std::string, double>>
Adam::scalars(const OptimizerOptions &options) const {
  Config c = configOf(options);
  return {{"lr", c.lr},
          {"weight_decay", c.weight_decay},
          {"decay_factor", 1 - c.lr * c.weight_decay},
          {"one_minus_beta1", 1 - c.beta1},
          {"beta1", c.beta1},
          {"beta2", c.beta2},
          {"one_minus_beta2", 1 - c.beta2},
          {"eps", c.eps}};
}

std::string Adam::structure(const OptimizerOptions &options) const {
  Config c = configOf(options);
  return std::string(decoupled_ ? "adamw" : "adam") +
         (c.weight_decay != 0 ? "+decay" : "") + (c.amsgrad ? "+amsgrad" : "") +
         (c.maximize ? "+maximize" : "") +
         // lerp's formula depends on which side of 0.5 its weight is.
         (1 - c.beta1 >= 0.5 ? "+lerp-high" : "");
}

void Adam::trace_update(const OptimizerOptions &options, ParamUpdate &u) const {
  Config c = configOf(options);
  auto &s = u.scalars;
  Tensor grad = c.maximize ? -u.grad : u.grad;
  Tensor param = u.param;
  if (decoupled_)
    param = param * s["decay_factor"];
  else if (c.weight_decay != 0)
    grad = grad + s["weight_decay"] * param;
  // lerp(end, w): self + w·(end - self) for w < 0.5, else
  // end - (end - self)·(1 - w), as ATen computes it.
  Tensor &exp_avg = u.state.at("exp_avg");
  Tensor w = s["one_minus_beta1"];
  Tensor avg = 1 - c.beta1 >= 0.5 ? grad - (grad - exp_avg) * s["beta1"]
                                  : exp_avg + w * (grad - exp_avg);
  F::assign_buffer(exp_avg, avg);
  Tensor &exp_avg_sq = u.state.at("exp_avg_sq");
  // addcmul_(grad, grad, value) and addcdiv_ below multiply by the value
  // first, as ATen's kernels do.
  Tensor sq = exp_avg_sq * s["beta2"] + (s["one_minus_beta2"] * grad) * grad;
  F::assign_buffer(exp_avg_sq, sq);
  Tensor second = sq;
  if (c.amsgrad) {
    Tensor &max_sq = u.state.at("max_exp_avg_sq");
    second = F::maximum(max_sq, sq);
    F::assign_buffer(max_sq, second);
  }
  Tensor step_size = s["lr"] / (1.0 - F::pow(s["beta1"], u.step));
  Tensor bias_correction2_sqrt = F::sqrt(1.0 - F::pow(s["beta2"], u.step));
  Tensor denom = F::sqrt(second) / bias_correction2_sqrt + s["eps"];
  F::assign_buffer(u.param, param - (step_size * avg) / denom);
}

} // namespace nn::optim
