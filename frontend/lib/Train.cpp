//===- Train.cpp - Compiled training steps --------------------------------===//
//
// The traced loss is differentiated (nn-autodiff) and compiled by a
// CompiledModule; each run's "grad.<key>" outputs are added to the grad()
// of the model's tensor of that state_dict key.
//
//===----------------------------------------------------------------------===//

#include "nn/Train.h"

#include <cstring>
#include <set>

namespace nn {

std::function<TracedModule()> TrainStep::traceLoss(
    std::shared_ptr<Module> model, std::shared_ptr<Module> lossModule,
    std::vector<TensorSpec> inputs, std::vector<TensorSpec> targets,
    std::function<std::vector<Tensor>(const std::vector<Tensor> &)> forward,
    LossFn loss) {
  return [=] {
    std::vector<TensorSpec> specs = inputs;
    specs.insert(specs.end(), targets.begin(), targets.end());
    auto step = [&](const std::vector<Tensor> &args) {
      std::vector<Tensor> outputs = forward(
          std::vector<Tensor>(args.begin(), args.begin() + inputs.size()));
      std::vector<Tensor> given(args.begin() + inputs.size(), args.end());
      return std::vector<Tensor>{loss(outputs, given)};
    };
    std::vector<std::pair<std::string, Module *>> extra;
    if (lossModule)
      extra.emplace_back("loss", lossModule.get());
    TracedModule traced = trace(*model, specs, step, extra);
    traced.differentiate();
    return traced;
  };
}

TrainStep::TrainStep(std::shared_ptr<Module> model,
                     std::function<TracedModule()> retrace,
                     optim::Optimizer *optimizer, CompileOptions options)
    : model_(model), compiled_(model, std::move(retrace), std::move(options)),
      optimizer_(optimizer) {
  if (!optimizer_)
    return;
  // What the optimizer updates must be the model's: a stray tensor would
  // never get a gradient from this step.
  std::set<const Storage *> own;
  for (const Tensor &p : model_->parameters())
    own.insert(p.storage().get());
  std::vector<std::string> strays;
  for (size_t g = 0; g < optimizer_->param_groups().size(); ++g) {
    const auto &params = optimizer_->param_groups()[g].params();
    for (size_t i = 0; i < params.size(); ++i)
      if (!own.count(params[i].storage().get()))
        strays.push_back("parameter " + std::to_string(i) + " of group " +
                         std::to_string(g) + " (" + params[i].to_string() +
                         ")");
  }
  if (!strays.empty()) {
    std::string message = "nn::TrainStep: the optimizer holds tensors that "
                          "are not parameters of " + model_->name() + ": ";
    for (size_t i = 0; i < strays.size(); ++i)
      message += (i ? ", " : "") + strays[i];
    throw Error(message);
  }
}

/// dst += src, elementwise (floating-point tensors of one shape and dtype).
static void accumulate(Tensor &dst, const Tensor &src) {
  int64_t n = dst.numel();
  if (dst.dtype() == DType::f64) {
    double *d = dst.data_ptr<double>();
    const double *s = src.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i)
      d[i] += s[i];
  } else if (dst.dtype() == DType::f32) {
    float *d = dst.data_ptr<float>();
    const float *s = src.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i)
      d[i] += s[i];
  } else {
    throw Error("nn::TrainStep: accumulating " +
                std::string(dtype_name(dst.dtype())) +
                " gradients is not supported yet");
  }
}

Tensor TrainStep::forward_backward(const std::vector<Tensor> &args) {
  const std::shared_ptr<Artifact> &artifact = compiled_.artifact();
  std::vector<Tensor> outputs = compiled_(args);
  const auto &described = artifact->description().outputs;
  // Every state_dict name of a tensor shares its gradient slot.
  StateDict state = model_->state_dict();
  captured_ = StateDict();
  for (size_t i = 1; i < outputs.size(); ++i) {
    const std::string &name = described[i].name;
    if (name.rfind("grad.", 0) != 0) {
      captured_.insert(name, outputs[i]);
      continue;
    }
    Tensor *param = state.find(name.substr(5));
    if (!param)
      continue; // a loss module's parameter: not the model's to keep
    if (!param->grad().defined()) {
      param->set_grad(outputs[i]);
    } else {
      Tensor grad = param->grad();
      accumulate(grad, outputs[i]);
    }
  }
  return outputs[0];
}

Tensor TrainStep::operator()(const std::vector<Tensor> &args) {
  if (!optimizer_)
    throw Error("nn::TrainStep: no optimizer to step; construct it with "
                "one, or call forward_backward and step your own");
  optimizer_->zero_grad();
  Tensor loss = forward_backward(args);
  optimizer_->step();
  return loss;
}

} // namespace nn
