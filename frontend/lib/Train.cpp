//===- Train.cpp - Compiled training steps --------------------------------===//
//
// The traced loss is differentiated (nn-autodiff) and compiled by a
// CompiledModule; each run's "grad.<key>" outputs are added to the grad()
// of the model's tensor of that state_dict key. The whole step (operator())
// resumes that trace after the gradients and traces the optimizer's update
// there: its state becomes buffers "optimizer.state.<param>.<key>", its
// hyper-parameters inputs "optimizer.param_groups.<g>.<name>", and the
// parameters are written in place (nn.store).
//
//===----------------------------------------------------------------------===//

#include "nn/Train.h"

#include "TraceContext.h"

#include "nn/IR/NNDialect.h"

#include <cstring>
#include <set>

namespace nn {

namespace {

constexpr const char *kOptimizerPrefix = "optimizer.";

/// Appends `optimizer`'s update of the parameters that get a gradient in
/// `traced` (differentiated) after the gradients.
void appendUpdate(TracedModule &traced, optim::Optimizer &optimizer) {
  TracedModule::Impl &impl = *traced.impl();
  auto forward = impl.module->lookupSymbol<mlir::func::FuncOp>("forward");
  mlir::Operation *ret = forward.getBody().front().getTerminator();
  std::set<const Storage *> optimized;
  for (const optim::OptimizerParamGroup &group : optimizer.param_groups())
    for (const Tensor &p : group.params())
      optimized.insert(p.storage().get());
  // The optimizer's parameters that get a gradient, and their keys.
  std::vector<Tensor> params;
  std::vector<std::string> keys;
  std::vector<mlir::Value> gradValues;
  for (unsigned i = 0; i < ret->getNumOperands(); ++i) {
    auto name = forward.getResultAttrOfType<mlir::StringAttr>(
        i, mlir::nn::NNAttr::kName);
    if (!name || !name.getValue().starts_with("grad."))
      continue;
    std::string key = name.getValue().drop_front(5).str();
    const Tensor *param = impl.state.find(key);
    if (!param || !optimized.count(param->storage().get()))
      continue;
    params.push_back(*param);
    keys.push_back(key);
    gradValues.push_back(ret->getOperand(i));
  }
  if (params.empty())
    return;

  detail::TraceContext trace(impl, forward);
  trace.allowParameterStores();
  for (const optim::UpdateState &state : optimizer.update_state(params))
    trace.declareBuffer(std::string(kOptimizerPrefix) + "state." +
                            keys[state.param] + "." + state.key,
                        state.tensor, /*startsAtZero=*/true);
  std::map<std::string, Tensor> hyper;
  for (const optim::HyperParameter &h : optimizer.hyper_parameters(params)) {
    std::string name = h.input_name();
    mlir::NamedAttribute value = trace.builder.getNamedAttr(
        mlir::nn::NNAttr::kDefault, trace.builder.getF64FloatAttr(h.value));
    hyper[name] = trace.wrap(
        trace.addInput(kOptimizerPrefix + name, {}, h.dtype, {value}));
  }
  std::vector<Tensor> grads;
  for (mlir::Value grad : gradValues)
    grads.push_back(trace.wrap(grad));
  optimizer.trace_step(params, grads, hyper);
  forward.setFunctionType(mlir::FunctionType::get(
      &impl.context, forward.getBody().front().getArgumentTypes(),
      ret->getOperandTypes()));
  detail::DiagnosticCapture capture(impl.context);
  if (mlir::failed(mlir::verify(*impl.module)))
    throw Error("nn::TrainStep: the traced update is invalid IR (a bug in "
                "nn): " +
                capture.message());
}

} // namespace

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
    : model_(model), retrace_(retrace), options_(options),
      compiled_(model, std::move(retrace), std::move(options)),
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
                          "are not parameters of " +
                          model_->name() + ": ";
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

std::function<TracedModule()> TrainStep::stepTracer() const {
  if (!optimizer_)
    throw Error("nn::TrainStep: no optimizer to step; construct it with "
                "one, or call forward_backward and step your own");
  return [retrace = retrace_, optimizer = optimizer_] {
    TracedModule traced = retrace();
    appendUpdate(traced, *optimizer);
    return traced;
  };
}

CompiledModule &TrainStep::compiled_step() {
  if (!step_) {
    step_ = std::make_unique<CompiledModule>(model_, stepTracer(), options_);
    step_->depend_on(
        [optimizer = optimizer_] { return optimizer->trace_key(); });
  }
  return *step_;
}

void TrainStep::compile_to_file(const std::string &path,
                                const CompileOptions &options) {
  nn::compile_to_file(stepTracer()(), path, options);
}

StateDict TrainStep::state_dict() const {
  if (!optimizer_)
    throw Error("nn::TrainStep::state_dict: the step has no optimizer; "
                "save the model's state_dict");
  StateDict out = model_->state_dict();
  // named_parameters names a tie once, by its first name, as the compiled
  // step names its state.
  for (const auto &[name, param] : model_->named_parameters()) {
    if (optimizer_->step_count(param) == 0)
      continue;
    std::string prefix = std::string(kOptimizerPrefix) + "state." + name + ".";
    for (const auto &[key, tensor] : optimizer_->state_of(param))
      out.insert(prefix + key, tensor);
    out.insert(prefix + "step", optimizer_->step_tensor(param));
  }
  return out;
}

void TrainStep::load_state_dict(const StateDict &state) {
  if (!optimizer_)
    throw Error("nn::TrainStep::load_state_dict: the step has no optimizer; "
                "load the model's state_dict");
  StateDict model;
  SafetensorsContents optimizer;
  optimizer.metadata = optimizer_->state_dict(*model_).metadata;
  std::string prefix = std::string(kOptimizerPrefix) + "state.";
  for (const auto &[name, tensor] : state) {
    if (name.rfind(prefix, 0) == 0)
      optimizer.tensors.insert(name.substr(strlen(kOptimizerPrefix)), tensor);
    else
      model.insert(name, tensor);
  }
  // Each load is all-or-nothing; the model's is undone if the optimizer's
  // fails.
  StateDict before;
  for (const auto &[name, tensor] : model_->state_dict())
    before.insert(name, tensor.clone());
  model_->load_state_dict(model);
  try {
    optimizer_->load_state_dict(optimizer, *model_);
  } catch (const Error &) {
    model_->load_state_dict(before);
    throw;
  }
}

Tensor TrainStep::forward_backward(const std::vector<Tensor> &args) {
  const std::shared_ptr<Artifact> &artifact = compiled_.artifact();
  std::vector<Tensor> outputs = compiled_(args);
  takeGradients(*artifact, gradientTargets(*artifact), outputs);
  return outputs[0];
}

std::vector<Tensor> TrainStep::gradientTargets(const Artifact &artifact) const {
  const auto &described = artifact.description().outputs;
  std::vector<Tensor> targets(described.size());
  StateDict state = model_->state_dict();
  for (size_t i = 1; i < described.size(); ++i)
    if (described[i].name.rfind("grad.", 0) == 0)
      if (const Tensor *param = state.find(described[i].name.substr(5)))
        targets[i] = *param;
  return targets;
}

std::vector<Tensor>
TrainStep::takeGradients(const Artifact &artifact,
                         const std::vector<Tensor> &targets,
                         const std::vector<Tensor> &outputs) {
  std::vector<Tensor> given;
  const auto &described = artifact.description().outputs;
  captured_ = StateDict();
  for (size_t i = 1; i < outputs.size(); ++i) {
    const std::string &name = described[i].name;
    if (name.rfind("grad.", 0) != 0) {
      captured_.insert(name, outputs[i]);
      continue;
    }
    Tensor param = targets[i];
    if (!param.defined())
      continue; // a loss module's parameter: not the model's to keep
    if (!param.grad().defined()) {
      param.set_grad(outputs[i]);
    } else {
      Tensor grad = param.grad();
      accumulate(grad, outputs[i]);
    }
    given.push_back(param);
  }
  return given;
}

Tensor TrainStep::operator()(const std::vector<Tensor> &args) {
  CompiledModule &step = compiled_step();
  const std::shared_ptr<Artifact> &artifact = step.artifact();
  // The hyper-parameters as the groups hold them now (a scheduler may have
  // moved them), by input name.
  std::vector<Tensor> params;
  for (const optim::OptimizerParamGroup &group : optimizer_->param_groups())
    params.insert(params.end(), group.params().begin(), group.params().end());
  std::map<std::string, optim::HyperParameter> hyper;
  for (const optim::HyperParameter &h : optimizer_->hyper_parameters(params))
    hyper.emplace(kOptimizerPrefix + h.input_name(), h);
  std::vector<Tensor> inputs = args;
  const auto &described = artifact->description().inputs;
  for (size_t i = args.size(); i < described.size(); ++i) {
    auto h = hyper.find(described[i].name);
    if (h == hyper.end()) {
      size_t taken = 0;
      for (const TensorInfo &input : described)
        taken += input.name.rfind(kOptimizerPrefix, 0) != 0;
      throw Error("nn::TrainStep: " + std::to_string(args.size()) +
                  " inputs and targets given, the step takes " +
                  std::to_string(taken) + " (" + described[i].name +
                  " is missing)");
    }
    inputs.push_back(h->second.tensor());
  }
  // The last step's gradients, which zero_grad() sets to None: those that
  // nothing else holds become this step's output buffers (as PyTorch's
  // AccumulateGrad takes over a gradient nobody else holds), instead of a
  // fresh allocation, zeroing and page faults per parameter and step.
  const std::vector<TensorInfo> &described_out =
      artifact->description().outputs;
  std::vector<Tensor> targets = gradientTargets(*artifact);
  std::vector<Tensor> outputs(described_out.size());
  for (size_t i = 0; i < targets.size(); ++i)
    if (targets[i].defined())
      outputs[i] = targets[i].grad();
  optimizer_->zero_grad();
  // Outputs go where Artifact::run puts them: on the GPU when an input is.
  Device where = Device::cpu();
  for (const Tensor &input : inputs)
    if (input.device() == artifact->device())
      where = artifact->device();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorInfo &info = described_out[i];
    Tensor &out = outputs[i];
    bool reusable = out.defined() && out.storage().use_count() == 1 &&
                    out.shape() == info.shape && out.dtype() == info.dtype &&
                    out.device() == where;
    if (!reusable)
      out = Tensor::zeros(info.shape, info.dtype, where);
  }
  if (absl::Status s = artifact->run_into(inputs, outputs); !s.ok())
    throw Error(std::string(s.message()));
  // The step wrote the parameters it updated in place: what compiled code
  // derived from them (packed weights) is stale.
  for (const Tensor &param : takeGradients(*artifact, targets, outputs))
    param.storage()->bump_version();
  return outputs[0];
}

} // namespace nn
