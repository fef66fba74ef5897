//===- Train.h - Compiled training steps ------------------------*- C++ -*-===//
//
// A TrainStep compiles loss(model(inputs...), targets...) and its gradients
// (nn-autodiff) into one function, and runs it the way a PyTorch training
// loop runs loss.backward():
//
//   nn::optim::SGD opt(model->parameters(),
//   nn::optim::SGDOptions(0.1).momentum(0.9)); nn::CrossEntropyLoss loss_fn;
//   nn::TrainStep step(model, loss_fn, {nn::TensorSpec({64, 784})},
//                      {nn::TensorSpec({64}, nn::DType::i64)}, opt);
//   for (auto &[x, y] : batches)
//     nn::Tensor loss = step(x, y);   // zero_grad, forward, loss, backward,
//                                     // opt.step(): one compiled call
//
//   // or in phases, for accumulation and clipping in between:
//   opt.zero_grad();
//   step.forward_backward(x, y);      // p.grad() += dloss/dp for every
//   trainable p opt.step();
//
// Gradients follow PyTorch's rules: a parameter with requires_grad false or
// one the loss does not depend on gets none (its grad() stays None); a tied
// parameter one, the sum over its uses; they accumulate into grad() until
// zero_grad. Backward hooks (Module::register_full_backward_hook and
// _pre_hook, Tensor::register_hook) run as the step is differentiated and
// change the gradients as PyTorch's do. The compiled code is a
// CompiledModule's: it is recompiled when the model changes (forward and
// backward hooks, train()/eval(), freezing, new tensors), and its weights
// re-prepared after the optimizer updates them.
//
// With an optimizer, operator() runs forward, loss, backward and the
// optimizer's update as one compiled function: the parameters and the
// optimizer's state ("optimizer.state.<param>.<key>", the step count
// included) are state it writes in place, the optimizer's hyper-parameters
// ("optimizer.param_groups.<g>.<name>") inputs read at every call, so a
// scheduler's new learning rate needs no recompile. compile_to_file writes
// that function as a shared object that a program linking only the runtime
// trains with (nn::Artifact, nn-run --train-steps).
//
//===----------------------------------------------------------------------===//
#ifndef NN_TRAIN_H
#define NN_TRAIN_H

#include "nn/Compile.h"
#include "nn/Optim/Optimizer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nn {

class TrainStep {
public:
  /// `loss` maps the model's (first) output and the targets to a scalar:
  /// a loss module (CrossEntropyLoss, MSELoss, ...) or any callable
  /// Tensor(const Tensor &output, const Tensor &target...).
  template <typename C, typename Loss>
  TrainStep(const ModuleHolder<C> &model, Loss loss,
            std::vector<TensorSpec> inputs, std::vector<TensorSpec> targets,
            CompileOptions options = {})
      : TrainStep(model.ptr(), tracer(model, std::move(loss), inputs, targets),
                  nullptr, std::move(options)) {}
  /// As above, with the optimizer operator() steps.
  template <typename C, typename Loss>
  TrainStep(const ModuleHolder<C> &model, Loss loss,
            std::vector<TensorSpec> inputs, std::vector<TensorSpec> targets,
            optim::Optimizer &optimizer, CompileOptions options = {})
      : TrainStep(model.ptr(), tracer(model, std::move(loss), inputs, targets),
                  &optimizer, std::move(options)) {}

  /// The model's forward given as a function of its inputs (as
  /// nn::trace(Module &, specs, forward) takes it), for a model held by a
  /// plain Module pointer or one called in a way of its own.
  using Forward =
      std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;
  template <typename Loss>
  TrainStep(std::shared_ptr<Module> model, Forward forward, Loss loss,
            std::vector<TensorSpec> inputs, std::vector<TensorSpec> targets,
            optim::Optimizer *optimizer = nullptr, CompileOptions options = {})
      : TrainStep(model,
                  traceLoss(model, lossModuleOf(loss), inputs, targets,
                            std::move(forward), lossFnOf(std::move(loss))),
                  optimizer, std::move(options)) {}

  /// Forward, loss and backward on the inputs then the targets, in order;
  /// adds each gradient to its parameter's grad() (sets it when None).
  /// Returns the loss. Throws nn::Error on bad inputs (named, with both
  /// shapes) or a failed compile.
  Tensor forward_backward(const std::vector<Tensor> &inputs_and_targets);
  template <typename... Rest>
  Tensor forward_backward(const Tensor &first, const Rest &...rest) {
    return forward_backward(std::vector<Tensor>{first, rest...});
  }

  /// The optimizer's zero_grad(), forward_backward, then its step(): one
  /// iteration of a training loop. Needs the optimizer constructor.
  Tensor operator()(const std::vector<Tensor> &inputs_and_targets);
  template <typename... Rest>
  Tensor operator()(const Tensor &first, const Rest &...rest) {
    return (*this)(std::vector<Tensor>{first, rest...});
  }

  /// The compiled forward-backward (its artifact, compile and prepare
  /// counts).
  CompiledModule &compiled() { return compiled_; }
  /// The compiled training step operator() runs (forward, loss, backward and
  /// the optimizer's update). Needs the optimizer constructor.
  CompiledModule &compiled_step();

  /// Compiles the training step operator() runs into the shared object
  /// `path`. Its inputs are the model's inputs, the targets, then the
  /// optimizer's hyper-parameters (each described with its value now as its
  /// "default"); its outputs the loss, then "grad.<param>" for every
  /// parameter that gets a gradient, then what hooks capture; its state the
  /// model's tensors and the optimizer's, which every run updates in place
  /// (save them after, and bind them again to resume). Running it once is
  /// one step of operator(), bit for bit. Throws nn::Error.
  void compile_to_file(const std::string &path,
                       const CompileOptions &options = {});

  /// The model's state_dict with the optimizer's state under the names the
  /// compiled step binds ("optimizer.state.<param>.<key>", the step count
  /// as a float of the parameter's dtype): a checkpoint that nn-run
  /// --train-steps resumes from, as load_state_dict does here. Needs the
  /// optimizer constructor.
  StateDict state_dict() const;
  /// Loads what state_dict() or nn-run --state-out wrote: the model's
  /// tensors (strictly, as Module::load_state_dict) and the optimizer's
  /// state (as Optimizer::load_state_dict, its groups as they are now).
  /// All-or-nothing: on any problem nn::Error names it and nothing changes.
  void load_state_dict(const StateDict &state);

  /// What the last forward_backward captured, by name: nn::capture calls in
  /// forward (capture hooks) and in backward hooks (a module's grad_input or
  /// grad_output, a gradient before a hook changed it).
  const StateDict &captured() const { return captured_; }

private:
  using LossFn = std::function<Tensor(const std::vector<Tensor> &outputs,
                                      const std::vector<Tensor> &targets)>;

  /// Traces loss(model(inputs), targets) and differentiates it.
  template <typename C, typename Loss>
  static std::function<TracedModule()>
  tracer(const ModuleHolder<C> &model, Loss loss,
         const std::vector<TensorSpec> &inputs,
         const std::vector<TensorSpec> &targets) {
    Forward forward = [model, inputs](const std::vector<Tensor> &args) {
      std::vector<Tensor> outputs;
      if (!detail::call_forward(model, args, outputs))
        throw Error("nn::TrainStep: " + std::to_string(inputs.size()) +
                    " input specs given, but " + model->name() +
                    "'s forward does not take that many tensors");
      return outputs;
    };
    return traceLoss(model.ptr(), lossModuleOf(loss), inputs, targets,
                     std::move(forward), lossFnOf(std::move(loss)));
  }

  /// `loss` as a function of the outputs and the targets.
  template <typename Loss> static LossFn lossFnOf(Loss loss) {
    return [loss](const std::vector<Tensor> &outputs,
                  const std::vector<Tensor> &targets) mutable {
      return callLoss(loss, outputs, targets);
    };
  }

  /// The module a loss module holder holds (its class weights are traced
  /// as "loss.<key>"), or null for a plain function.
  template <typename Loss>
  static std::shared_ptr<Module> lossModuleOf(const Loss &loss) {
    if constexpr (requires { loss.ptr(); })
      return loss.ptr();
    else
      return nullptr;
  }

  template <typename Loss>
  static Tensor callLoss(Loss &loss, const std::vector<Tensor> &outputs,
                         const std::vector<Tensor> &targets) {
    if (outputs.empty())
      throw Error("nn::TrainStep: the model returned no tensor");
    if constexpr (std::is_invocable_r_v<Tensor, Loss &, const Tensor &,
                                        const Tensor &>) {
      if (targets.size() == 1)
        return loss(outputs[0], targets[0]);
    }
    if constexpr (std::is_invocable_r_v<Tensor, Loss &, const Tensor &>) {
      if (targets.empty())
        return loss(outputs[0]);
    }
    throw Error("nn::TrainStep: the loss does not take the model's output "
                "and " +
                std::to_string(targets.size()) + " targets");
  }

  /// `lossModule` (when the loss is a module) has its tensors (class
  /// weights) named "loss.<key>" in the trace.
  static std::function<TracedModule()> traceLoss(
      std::shared_ptr<Module> model, std::shared_ptr<Module> lossModule,
      std::vector<TensorSpec> inputs, std::vector<TensorSpec> targets,
      std::function<std::vector<Tensor>(const std::vector<Tensor> &)> forward,
      LossFn loss);

  TrainStep(std::shared_ptr<Module> model,
            std::function<TracedModule()> retrace, optim::Optimizer *optimizer,
            CompileOptions options);

  /// Traces the whole step: the differentiated loss with the optimizer's
  /// update after it.
  std::function<TracedModule()> stepTracer() const;
  /// Per output of `artifact`, the model's tensor it is the gradient of
  /// ("grad.<key>"; every state_dict name of a tensor shares its gradient
  /// slot), undefined for the loss, what hooks capture and a loss module's
  /// parameters.
  std::vector<Tensor> gradientTargets(const Artifact &artifact) const;
  /// Adds the gradients in outputs [1, ...) to their `targets`' grad() (or
  /// sets them) and keeps what was captured; returns the tensors that got
  /// one.
  std::vector<Tensor> takeGradients(const Artifact &artifact,
                                    const std::vector<Tensor> &targets,
                                    const std::vector<Tensor> &outputs);

  std::shared_ptr<Module> model_;
  std::function<TracedModule()> retrace_;
  CompileOptions options_;
  CompiledModule compiled_;
  optim::Optimizer *optimizer_;
  std::unique_ptr<CompiledModule> step_;
  StateDict captured_;
};

} // namespace nn

#endif // NN_TRAIN_H
