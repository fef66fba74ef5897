//===- Optimizer.h - Compiled optimizers: the common part -------*- C++ -*-===//
//
// An optimizer updates parameters from their gradients, as torch.optim's
// do (the single-tensor reference loop of torch/optim/<name>.py is each
// one's spec), with libtorch's spelling: parameter groups with options of
// their own, the defaults filling in what a group leaves out.
//
// The update is compiled, not a loop per tensor: step() traces one function
// that updates every parameter with a gradient (nn::functional ops, one
// fused and vectorized loop nest per parameter, the parameters and the
// optimizer's state bound in place), compiles it once, and runs it. The
// hyper-parameters (learning rate, betas, weight decay, the bias
// corrections of the step count) are run-time inputs, so a scheduler that
// changes them never recompiles; what changes the update's shape (momentum
// on or off, nesterov, amsgrad, a new parameter getting a gradient) does.
//
//===----------------------------------------------------------------------===//
#ifndef NN_OPTIM_OPTIMIZER_H
#define NN_OPTIM_OPTIMIZER_H

#include "nn/Runtime/Artifact.h"
#include "nn/Runtime/Safetensors.h"
#include "nn/Runtime/Tensor.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace nn {
class Module;
} // namespace nn

namespace nn::optim {

/// An optimizer's options (libtorch's OptimizerOptions); every kind has a
/// learning rate, which schedulers read and set.
class OptimizerOptions {
public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  /// Every option by name (flags as 0 or 1), for a checkpoint.
  virtual std::vector<std::pair<std::string, double>> values() const = 0;
  /// Sets the option `name` (as values() names it); false if there is none.
  virtual bool set_value(const std::string &name, double value) = 0;
};

/// Parameters sharing options. A group built without options takes the
/// optimizer's defaults (a copy) when the optimizer is made.
class OptimizerParamGroup {
public:
  explicit OptimizerParamGroup(std::vector<Tensor> params)
      : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params,
                      std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup &other);
  OptimizerParamGroup &operator=(const OptimizerParamGroup &other);
  OptimizerParamGroup(OptimizerParamGroup &&) = default;
  OptimizerParamGroup &operator=(OptimizerParamGroup &&) = default;

  std::vector<Tensor> &params() { return params_; }
  const std::vector<Tensor> &params() const { return params_; }
  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions &options();
  const OptimizerOptions &options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) {
    options_ = std::move(options);
  }

private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

/// What the traced update of one parameter reads: the parameter and its
/// state (assign new values with F::assign_buffer), its gradient, the step
/// it takes (1 on its first, counted by the compiled code itself) and its
/// group's hyper-parameters, rank-0 tensors of the parameter's dtype, all
/// symbolic or bound while the update is traced.
struct ParamUpdate {
  Tensor param;
  Tensor grad;
  std::map<std::string, Tensor> state;
  Tensor step;
  std::map<std::string, Tensor> scalars;
};

/// One tensor of a traced update's state: tensor `key` ("exp_avg", ...,
/// and "step", the parameter's step count) of parameter `param` (an index
/// into the parameters the update was asked for).
struct UpdateState {
  size_t param;
  std::string key;
  Tensor tensor;
};

/// One run-time input of a traced update: hyper-parameter `name` of group
/// `group` for its parameters of dtype `dtype`, and its value now.
/// input_name() is how the update's input is named:
/// "param_groups.<group>.<name>", with ".<dtype>" after it for a dtype
/// other than float32.
struct HyperParameter {
  size_t group;
  std::string name;
  DType dtype;
  double value;
  std::string input_name() const;
  /// The value as the update's input: rank 0, of `dtype`.
  Tensor tensor() const;
};

class Optimizer {
public:
  virtual ~Optimizer();
  Optimizer(const Optimizer &) = delete;
  Optimizer &operator=(const Optimizer &) = delete;

  /// Updates every parameter that has a gradient (grad() defined); the
  /// others, and their state, are left alone, as PyTorch does.
  void step();
  /// Sets every parameter's gradient to None (PyTorch 2's default), or to
  /// zeros in place with `set_to_none` false.
  void zero_grad(bool set_to_none = true);

  std::vector<OptimizerParamGroup> &param_groups() { return groups_; }
  const std::vector<OptimizerParamGroup> &param_groups() const {
    return groups_;
  }
  const OptimizerOptions &defaults() const { return *defaults_; }
  /// The state of a parameter ("momentum_buffer", "exp_avg", ...); empty
  /// before its first step.
  std::map<std::string, Tensor> state_of(const Tensor &param) const;
  /// How many steps a parameter has taken.
  int64_t step_count(const Tensor &param) const;
  /// The same count as the compiled update keeps it (rank 0, the
  /// parameter's dtype, as PyTorch keeps a float); undefined before the
  /// parameter's first step.
  Tensor step_tensor(const Tensor &param) const;
  /// How many times the update has been compiled.
  size_t compile_count() const { return compiles_; }

  /// For a compiled training step that runs forward, backward and the
  /// update in one call (nn::TrainStep), the update as pieces of its trace:
  /// - update_state: every state tensor the update of `params` (each one of
  ///   this optimizer's) reads and writes, created as zeros where a
  ///   parameter has none yet;
  /// - hyper_parameters: the hyper-parameters it reads, their values now;
  /// - trace_step: traces one step into the trace in progress, which must
  ///   know update_state's tensors (as buffers) and pass the inputs
  ///   `hyper`, by HyperParameter::input_name();
  /// - trace_key: a hash of what the traced update depends on besides
  ///   values (each group's structure and parameters, which state tensors
  ///   it holds): when it changes, so does the trace.
  std::vector<UpdateState> update_state(const std::vector<Tensor> &params);
  std::vector<HyperParameter>
  hyper_parameters(const std::vector<Tensor> &params) const;
  void trace_step(const std::vector<Tensor> &params,
                  const std::vector<Tensor> &grads,
                  const std::map<std::string, Tensor> &hyper) const;
  uint64_t trace_key() const;

  /// The optimizer's state for a checkpoint, named after `model`'s
  /// parameters: tensors "state.<name>.<key>" (momentum_buffer, exp_avg,
  /// ...) and "state.<name>.step" (the step count, 0-dim int64), and as
  /// metadata every group's options and parameters ("param_groups.0.lr" =
  /// "0.1", "param_groups.0.params" = "fc1.weight,fc1.bias"). Save it with
  /// nn::save_safetensors(path, state.tensors, state.metadata) beside the
  /// model's own file. Throws nn::Error naming a parameter `model` lacks.
  SafetensorsContents state_dict(const Module &model) const;
  /// Restores what state_dict wrote, so that training resumes exactly: the
  /// groups must hold the same parameters (by `model`'s names), and every
  /// state tensor must be one of theirs, of their shape. Otherwise
  /// nn::Error listing every mismatch, and nothing changes.
  void load_state_dict(const SafetensorsContents &state, const Module &model);

protected:
  /// Groups without options take a copy of `defaults`. Throws nn::Error
  /// naming a tensor listed twice, or one that is not floating-point.
  Optimizer(std::vector<OptimizerParamGroup> groups,
            std::unique_ptr<OptimizerOptions> defaults);

  /// The per-parameter state tensors of an update with `options`, created
  /// as zeros shaped like the parameter before its first step.
  virtual std::vector<std::string>
  state_names(const OptimizerOptions &options) const = 0;
  /// The hyper-parameters of an update with `options`, by name, as the
  /// update reads them (computed here in double, as Python does; what
  /// depends on the step count, the update computes from ParamUpdate::step).
  virtual std::vector<std::pair<std::string, double>>
  scalars(const OptimizerOptions &options) const = 0;
  /// What in `options` changes the traced update (flags, not values).
  virtual std::string structure(const OptimizerOptions &options) const = 0;
  /// Traces one parameter's update with nn::functional ops.
  virtual void trace_update(const OptimizerOptions &options,
                            ParamUpdate &update) const = 0;

private:
  struct ParamState {
    std::map<std::string, Tensor> tensors;
    /// The steps taken: rank 0, the parameter's dtype (as PyTorch keeps
    /// it, a float), written by the compiled update.
    Tensor step;
  };
  /// The group holding `param` (one of ours).
  size_t groupOf(const Tensor &param) const;
  /// Compiles the update of `params` (parameters with a gradient).
  void compile(const std::vector<Tensor> &params);

  std::vector<OptimizerParamGroup> groups_;
  std::unique_ptr<OptimizerOptions> defaults_;
  /// By the parameter's storage (a tensor and its copies share it).
  std::map<const Storage *, ParamState> state_;
  /// Bumped when the state tensors are replaced (load_state_dict).
  uint64_t state_epoch_ = 0;
  std::shared_ptr<Artifact> update_;
  std::string update_key_;
  size_t compiles_ = 0;
};

} // namespace nn::optim

#endif // NN_OPTIM_OPTIMIZER_H
