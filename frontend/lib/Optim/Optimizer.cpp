//===- Optimizer.cpp - The compiled update shared by the optimizers -------===//
//
// step() traces one function over every parameter that has a gradient: the
// parameters and their state are buffers of a module of the optimizer's own
// (sharing storage with the model's tensors, so the compiled update writes
// them in place); the gradients and each parameter's hyper-parameters are
// inputs. The compiled update is kept while the same parameters have
// gradients and the options keep their structure.
//
//===----------------------------------------------------------------------===//

#include "nn/Optim/Optimizer.h"

#include "nn/Compile.h"
#include "nn/Frontend/Module.h"
#include "nn/Functional.h"

#include "absl/strings/str_join.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>

namespace nn::optim {

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup &other)
    : params_(other.params_),
      options_(other.options_ ? other.options_->clone() : nullptr) {}

OptimizerParamGroup &
OptimizerParamGroup::operator=(const OptimizerParamGroup &other) {
  params_ = other.params_;
  options_ = other.options_ ? other.options_->clone() : nullptr;
  return *this;
}

OptimizerOptions &OptimizerParamGroup::options() {
  if (!options_)
    throw Error("OptimizerParamGroup: the group has no options yet (an "
                "optimizer gives it its defaults)");
  return *options_;
}

const OptimizerOptions &OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup *>(this)->options();
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : groups_(std::move(groups)), defaults_(std::move(defaults)) {
  std::set<const Storage *> seen;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].has_options())
      groups_[g].set_options(defaults_->clone());
    for (size_t i = 0; i < groups_[g].params().size(); ++i) {
      const Tensor &p = groups_[g].params()[i];
      std::string where = "parameter " + std::to_string(i) + " of group " +
                          std::to_string(g) + " (" + p.to_string() + ")";
      if (!p.defined() || !p.storage())
        throw Error("optimizer: " + where + " has no data");
      if (!is_floating_point(p.dtype()))
        throw Error("optimizer: " + where +
                    " is not floating-point; only those are optimized");
      if (!seen.insert(p.storage().get()).second)
        throw Error("optimizer: " + where +
                    " appears more than once; a parameter belongs to one "
                    "group, once");
    }
  }
}

Optimizer::~Optimizer() = default;

void Optimizer::zero_grad(bool set_to_none) {
  for (OptimizerParamGroup &group : groups_)
    for (Tensor &p : group.params()) {
      if (!p.grad().defined())
        continue;
      if (set_to_none) {
        p.set_grad(Tensor());
      } else {
        Tensor grad = p.grad();
        std::memset(grad.raw_data(), 0, grad.nbytes());
      }
    }
}

std::map<std::string, Tensor> Optimizer::state_of(const Tensor &param) const {
  auto it = state_.find(param.storage().get());
  return it == state_.end() ? std::map<std::string, Tensor>()
                            : it->second.tensors;
}

/// A rank-0 tensor of `dtype` (f32 or f64) holding `value`.
static Tensor scalarTensor(double value, DType dtype) {
  Tensor t = Tensor::zeros({}, dtype);
  if (dtype == DType::f64)
    *t.data_ptr<double>() = value;
  else
    *t.data_ptr<float>() = static_cast<float>(value);
  return t;
}

Tensor Optimizer::step_tensor(const Tensor &param) const {
  auto it = state_.find(param.storage().get());
  return it == state_.end() ? Tensor() : it->second.step;
}

int64_t Optimizer::step_count(const Tensor &param) const {
  Tensor step = step_tensor(param);
  return step.defined() ? static_cast<int64_t>(step.item_as_double(0)) : 0;
}

std::string HyperParameter::input_name() const {
  std::string name = "param_groups." + std::to_string(group) + "." + this->name;
  return dtype == DType::f32 ? name
                             : name + "." + std::string(dtype_name(dtype));
}

Tensor HyperParameter::tensor() const { return scalarTensor(value, dtype); }

size_t Optimizer::groupOf(const Tensor &param) const {
  for (size_t g = 0; g < groups_.size(); ++g)
    for (const Tensor &p : groups_[g].params())
      if (p.storage() == param.storage())
        return g;
  throw Error("optimizer: " + param.to_string() + " is none of its parameters");
}

std::vector<UpdateState>
Optimizer::update_state(const std::vector<Tensor> &params) {
  std::vector<UpdateState> out;
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor &p = params[i];
    const OptimizerOptions &options = groups_[groupOf(p)].options();
    ParamState &s = state_[p.storage().get()];
    for (const std::string &name : state_names(options))
      if (!s.tensors.count(name))
        s.tensors[name] = Tensor::zeros(p.shape(), p.dtype());
    if (!s.step.defined())
      s.step = Tensor::zeros({}, p.dtype());
    for (const auto &[name, tensor] : s.tensors)
      out.push_back({i, name, tensor});
    out.push_back({i, "step", s.step});
  }
  return out;
}

std::vector<HyperParameter>
Optimizer::hyper_parameters(const std::vector<Tensor> &params) const {
  std::set<std::pair<size_t, DType>> needed;
  for (const Tensor &p : params)
    needed.insert({groupOf(p), p.dtype()});
  std::vector<HyperParameter> out;
  for (const auto &[group, dtype] : needed)
    for (auto &[name, value] : scalars(groups_[group].options()))
      out.push_back({group, name, dtype, value});
  return out;
}

void Optimizer::trace_step(const std::vector<Tensor> &params,
                           const std::vector<Tensor> &grads,
                           const std::map<std::string, Tensor> &hyper) const {
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor &p = params[i];
    size_t group = groupOf(p);
    const OptimizerOptions &options = groups_[group].options();
    const ParamState &state = state_.at(p.storage().get());
    ParamUpdate u;
    u.param = p;
    u.grad = grads[i];
    u.state = state.tensors;
    u.step = state.step + 1.0;
    F::assign_buffer(state.step, u.step);
    for (auto &[name, value] : scalars(options)) {
      std::string input =
          HyperParameter{group, name, p.dtype(), value}.input_name();
      auto it = hyper.find(input);
      if (it == hyper.end())
        throw Error("optimizer: the traced update has no input " + input);
      u.scalars[name] = it->second;
    }
    trace_update(options, u);
  }
}

uint64_t Optimizer::trace_key() const {
  std::string key = std::to_string(state_epoch_) + ";";
  for (const OptimizerParamGroup &group : groups_) {
    key += structure(group.options()) + ":";
    for (const Tensor &p : group.params()) {
      auto it = state_.find(p.storage().get());
      key += std::to_string(reinterpret_cast<uintptr_t>(p.storage().get())) +
             (it == state_.end()
                  ? ","
                  : "+" + std::to_string(it->second.tensors.size()) + ",");
    }
    key += ";";
  }
  return std::hash<std::string>()(key);
}

void Optimizer::compile(const std::vector<Tensor> &params) {
  // The parameters and their state, as buffers of a module of our own:
  // the trace reads and writes them by storage.
  Module root("Optimizer");
  std::vector<TensorSpec> specs;
  for (size_t i = 0; i < params.size(); ++i) {
    root.register_buffer("p" + std::to_string(i), params[i]);
    specs.emplace_back(params[i].shape(), params[i].dtype(),
                       "grad" + std::to_string(i));
  }
  for (const UpdateState &s : update_state(params))
    root.register_buffer("p" + std::to_string(s.param) + "_" + s.key, s.tensor);
  std::vector<HyperParameter> hyper = hyper_parameters(params);
  for (const HyperParameter &h : hyper)
    specs.emplace_back(Shape{}, h.dtype, h.input_name());
  auto update = [&](const std::vector<Tensor> &args) {
    std::vector<Tensor> grads(args.begin(), args.begin() + params.size());
    std::map<std::string, Tensor> inputs;
    for (size_t i = 0; i < hyper.size(); ++i)
      inputs[hyper[i].input_name()] = args[params.size() + i];
    trace_step(params, grads, inputs);
    return std::vector<Tensor>{};
  };
  update_ = nn::compile(trace(root, specs, update));
  ++compiles_;
}

void Optimizer::step() {
  std::vector<Tensor> params;
  for (OptimizerParamGroup &group : groups_)
    for (const Tensor &p : group.params()) {
      if (!p.grad().defined())
        continue;
      const Tensor &g = p.grad();
      if (g.shape() != p.shape() || g.dtype() != p.dtype())
        throw Error("optimizer: the gradient of " + p.to_string() + " is " +
                    g.to_string() +
                    "; it must have the parameter's shape "
                    "and dtype");
      params.push_back(p);
    }
  if (params.empty())
    return;
  // Compiling creates the state of parameters stepping for the first time,
  // which the key counts: it is taken after.
  auto keyOf = [&] {
    std::string key = std::to_string(trace_key()) + ":";
    for (const Tensor &p : params)
      key +=
          std::to_string(reinterpret_cast<uintptr_t>(p.storage().get())) + ",";
    return key;
  };
  if (!update_ || keyOf() != update_key_) {
    compile(params);
    update_key_ = keyOf();
  }
  std::vector<Tensor> inputs;
  for (const Tensor &p : params)
    inputs.push_back(p.grad());
  for (const HyperParameter &h : hyper_parameters(params))
    inputs.push_back(h.tensor());
  absl::StatusOr<std::vector<Tensor>> ran = update_->run(inputs);
  if (!ran.ok())
    throw Error("optimizer step failed: " +
                std::string(ran.status().message()));
  // The compiled update wrote the parameters in place: what a model's
  // compiled code derived from them (packed weights) is stale.
  for (const Tensor &p : params)
    p.storage()->bump_version();
}

/// Each parameter's name in `model`, by storage (a tied tensor's first).
static std::map<const Storage *, std::string> namesIn(const Module &model) {
  std::map<const Storage *, std::string> names;
  for (const auto &[name, p] : model.named_parameters())
    names.emplace(p.storage().get(), name);
  return names;
}

/// `value` as the shortest text that reads back to the same double.
static std::string exactly(double value) {
  char text[32];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  (void)error; // 32 characters hold any double
  return std::string(text, end);
}

SafetensorsContents Optimizer::state_dict(const Module &model) const {
  std::map<const Storage *, std::string> names = namesIn(model);
  SafetensorsContents out;
  for (size_t g = 0; g < groups_.size(); ++g) {
    std::string group = "param_groups." + std::to_string(g) + ".";
    std::vector<std::string> params;
    for (const Tensor &p : groups_[g].params()) {
      auto name = names.find(p.storage().get());
      if (name == names.end())
        throw Error("optimizer state_dict: " + p.to_string() + " in group " +
                    std::to_string(g) + " is not a parameter of " +
                    model.name());
      params.push_back(name->second);
      auto state = state_.find(p.storage().get());
      if (state == state_.end())
        continue;
      for (const auto &[key, tensor] : state->second.tensors)
        out.tensors.insert("state." + name->second + "." + key, tensor.clone());
      out.tensors.insert("state." + name->second + ".step",
                         Tensor::from_vector<int64_t>({step_count(p)}, {}));
    }
    out.metadata[group + "params"] = absl::StrJoin(params, ",");
    for (const auto &[option, value] : groups_[g].options().values())
      out.metadata[group + option] = exactly(value);
  }
  return out;
}

void Optimizer::load_state_dict(const SafetensorsContents &in,
                                const Module &model) {
  std::map<const Storage *, std::string> names = namesIn(model);
  std::map<std::string, const Tensor *> byName; // this optimizer's params
  std::map<const Storage *, std::pair<size_t, std::string>> groupAndName;
  std::vector<std::string> problems;
  std::vector<std::vector<std::pair<std::string, double>>> options(
      groups_.size());
  for (size_t g = 0; g < groups_.size(); ++g) {
    std::string group = "param_groups." + std::to_string(g) + ".";
    std::vector<std::string> ourNames;
    for (const Tensor &p : groups_[g].params()) {
      auto name = names.find(p.storage().get());
      std::string n = name == names.end() ? p.to_string() : name->second;
      ourNames.push_back(n);
      byName[n] = &p;
      groupAndName[p.storage().get()] = {g, n};
    }
    std::string ours = absl::StrJoin(ourNames, ",");
    auto saved = in.metadata.find(group + "params");
    if (saved == in.metadata.end()) {
      problems.push_back("group " + std::to_string(g) + " is not in the state");
      continue;
    }
    if (saved->second != ours)
      problems.push_back("group " + std::to_string(g) + " holds " + ours +
                         ", the state's " + saved->second);
    for (const auto &[option, value] : groups_[g].options().values()) {
      auto text = in.metadata.find(group + option);
      if (text == in.metadata.end()) {
        problems.push_back("group " + std::to_string(g) + " has no " + option);
        continue;
      }
      char *end = nullptr;
      double parsed = std::strtod(text->second.c_str(), &end);
      if (text->second.empty() || *end)
        problems.push_back("group " + std::to_string(g) + "'s " + option +
                           " is not a number: '" + text->second + "'");
      options[g].emplace_back(option, parsed);
    }
  }
  if (in.metadata.count("param_groups." + std::to_string(groups_.size()) +
                        ".params"))
    problems.push_back("the state has more than " +
                       std::to_string(groups_.size()) + " groups");
  // Each tensor "state.<param>.<key>": the longest parameter name that
  // prefixes it.
  std::map<const Storage *, ParamState> loaded;
  for (const auto &[key, tensor] : in.tensors) {
    const Tensor *param = nullptr;
    std::string what;
    for (const auto &[name, p] : byName)
      if (key.rfind("state." + name + ".", 0) == 0 &&
          (!param || name.size() > what.size()))
        param = p, what = name;
    if (!param) {
      problems.push_back("'" + key +
                         "' is the state of no parameter of "
                         "this optimizer");
      continue;
    }
    std::string field = key.substr(("state." + what + ".").size());
    ParamState &state = loaded[param->storage().get()];
    if (field == "step") {
      // int64 as state_dict writes it, or a float as PyTorch keeps it.
      if (tensor.numel() != 1 ||
          (tensor.dtype() != DType::i64 && !is_floating_point(tensor.dtype())))
        problems.push_back("'" + key + "' must be one number");
      else
        state.step = scalarTensor(tensor.item_as_double(0), param->dtype());
      continue;
    }
    if (tensor.shape() != param->shape() || tensor.dtype() != param->dtype()) {
      problems.push_back("'" + key + "' is " + tensor.to_string() +
                         ", its parameter " + param->to_string());
      continue;
    }
    state.tensors[field] = tensor.clone();
  }
  // A parameter's state is whole (every tensor its group's update keeps,
  // with the step count) or absent (it has not stepped yet).
  for (const auto &[storage, state] : loaded) {
    const auto &[g, name] = groupAndName.at(storage);
    std::unique_ptr<OptimizerOptions> after = groups_[g].options().clone();
    for (const auto &[option, value] : options[g])
      after->set_value(option, value);
    std::vector<std::string> wanted = state_names(*after), missing;
    for (const std::string &field : wanted)
      if (!state.tensors.count(field))
        missing.push_back(field);
    for (const auto &[field, tensor] : state.tensors)
      if (std::find(wanted.begin(), wanted.end(), field) == wanted.end())
        problems.push_back("'state." + name + "." + field +
                           "' is not kept by group " + std::to_string(g) +
                           "'s update");
    if (!state.step.defined() || state.step.item_as_double(0) < 1)
      missing.push_back("step");
    if (!missing.empty())
      problems.push_back(name + "'s state lacks " +
                         absl::StrJoin(missing, ", "));
  }
  if (!problems.empty())
    throw Error("optimizer load_state_dict: " + absl::StrJoin(problems, "; ") +
                "; nothing was loaded");
  for (size_t g = 0; g < groups_.size(); ++g)
    for (const auto &[option, value] : options[g])
      groups_[g].options().set_value(option, value);
  state_ = std::move(loaded);
  // The compiled updates are bound to the old state tensors.
  ++state_epoch_;
  update_.reset();
  update_key_.clear();
}

} // namespace nn::optim
