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
#include "nn/Functional.h"

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

int64_t Optimizer::step_count(const Tensor &param) const {
  auto it = state_.find(param.storage().get());
  return it == state_.end() ? 0 : it->second.step;
}

void Optimizer::compile(const std::vector<Entry> &entries) {
  // The parameters and their state, as buffers of a module of our own:
  // the trace reads and writes them by storage.
  Module root("Optimizer");
  std::vector<TensorSpec> specs;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Tensor &p = entries[i].param;
    root.register_buffer("p" + std::to_string(i), p);
    for (auto &[name, tensor] : state_.at(p.storage().get()).tensors)
      root.register_buffer("p" + std::to_string(i) + "_" + name, tensor);
    specs.emplace_back(p.shape(), p.dtype(), "grad" + std::to_string(i));
  }
  for (size_t i = 0; i < entries.size(); ++i)
    for (auto &[name, value] : scalars(*entries[i].options, 1))
      specs.emplace_back(Shape{}, entries[i].param.dtype(),
                         "p" + std::to_string(i) + "_" + name);
  auto update = [&](const std::vector<Tensor> &args) {
    size_t next = entries.size();
    for (size_t i = 0; i < entries.size(); ++i) {
      const Tensor &p = entries[i].param;
      ParamUpdate u;
      u.param = p;
      u.grad = args[i];
      u.state = state_.at(p.storage().get()).tensors;
      for (auto &[name, value] : scalars(*entries[i].options, 1))
        u.scalars[name] = args[next++];
      trace_update(*entries[i].options, u);
    }
    return std::vector<Tensor>{};
  };
  update_ = nn::compile(trace(root, specs, update));
  ++compiles_;
}

void Optimizer::step() {
  std::vector<Entry> entries;
  std::string key;
  for (OptimizerParamGroup &group : groups_)
    for (const Tensor &p : group.params()) {
      if (!p.grad().defined())
        continue;
      const Tensor &g = p.grad();
      if (g.shape() != p.shape() || g.dtype() != p.dtype())
        throw Error("optimizer: the gradient of " + p.to_string() + " is " +
                    g.to_string() + "; it must have the parameter's shape "
                    "and dtype");
      entries.push_back({p, &group.options()});
      key += std::to_string(reinterpret_cast<uintptr_t>(p.storage().get())) +
             ":" + structure(group.options()) + ";";
    }
  if (entries.empty())
    return;
  for (const Entry &e : entries) {
    ParamState &s = state_[e.param.storage().get()];
    if (s.step == 0)
      for (const std::string &name : state_names(*e.options))
        if (!s.tensors.count(name))
          s.tensors[name] = Tensor::zeros(e.param.shape(), e.param.dtype());
  }
  if (!update_ || key != update_key_) {
    compile(entries);
    update_key_ = key;
  }
  std::vector<Tensor> inputs;
  for (const Entry &e : entries)
    inputs.push_back(e.param.grad());
  for (const Entry &e : entries) {
    int64_t step = ++state_[e.param.storage().get()].step;
    for (auto &[name, value] : scalars(*e.options, step)) {
      Tensor scalar = Tensor::zeros({}, e.param.dtype());
      if (e.param.dtype() == DType::f64)
        *scalar.data_ptr<double>() = value;
      else
        *scalar.data_ptr<float>() = static_cast<float>(value);
      inputs.push_back(scalar);
    }
  }
  absl::StatusOr<std::vector<Tensor>> ran = update_->run(inputs);
  if (!ran.ok())
    throw Error("optimizer step failed: " + std::string(ran.status().message()));
  // The compiled update wrote the parameters in place: what a model's
  // compiled code derived from them (packed weights) is stale.
  for (const Entry &e : entries)
    e.param.storage()->bump_version();
}

} // namespace nn::optim
