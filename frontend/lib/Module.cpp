//===- Module.cpp - The module tree ---------------------------------------===//
//
// Registration, traversal, state_dict and printing of nn::Module, following
// torch.nn.Module's rules (see Module.h).
//
//===----------------------------------------------------------------------===//

#include "nn/Frontend/Module.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

namespace nn {

Module::Module(std::string name) : name_(std::move(name)) {}
Module::~Module() = default;

void Module::check_new_name(const std::string &name, const char *kind) const {
  if (name.empty())
    throw Error(std::string(kind) + " name can't be empty");
  if (name.find('.') != std::string::npos)
    throw Error(std::string(kind) + " name can't contain \".\", got \"" +
                name + "\"");
  auto taken = [&](const auto &list) {
    return std::any_of(list.begin(), list.end(),
                       [&](const auto &item) { return item.name == name; });
  };
  if (taken(parameters_) || taken(buffers_) ||
      std::any_of(children_.begin(), children_.end(),
                  [&](const auto &c) { return c.first == name; }))
    throw Error("attribute \"" + name + "\" already exists in " + name_);
}

Tensor &Module::add_slot(std::vector<TensorSlot> &slots, std::string name,
                         std::unique_ptr<Tensor> owned, Tensor *member,
                         bool flag) {
  TensorSlot slot;
  slot.name = std::move(name);
  slot.owned = std::move(owned);
  slot.tensor = slot.owned ? slot.owned.get() : member;
  slot.flag = flag;
  slots.push_back(std::move(slot));
  return *slots.back().tensor;
}

Tensor &Module::register_parameter(std::string name, Tensor tensor,
                                   bool requires_grad) {
  check_new_name(name, "parameter");
  if (!tensor.defined())
    throw Error("parameter \"" + name + "\" is undefined; use "
                "register_parameter(name, nullptr) for an empty slot");
  return add_slot(parameters_, std::move(name),
                  std::make_unique<Tensor>(std::move(tensor)), nullptr,
                  requires_grad);
}

Tensor &Module::register_parameter(std::string name, Tensor *member,
                                   bool requires_grad) {
  check_new_name(name, "parameter");
  if (!member)
    throw Error("parameter \"" + name + "\": the member pointer is null");
  return add_slot(parameters_, std::move(name), nullptr, member, requires_grad);
}

void Module::register_parameter(std::string name, std::nullptr_t) {
  check_new_name(name, "parameter");
  TensorSlot slot;
  slot.name = std::move(name);
  parameters_.push_back(std::move(slot));
}

Tensor &Module::register_buffer(std::string name, Tensor tensor,
                                bool persistent) {
  check_new_name(name, "buffer");
  return add_slot(buffers_, std::move(name),
                  std::make_unique<Tensor>(std::move(tensor)), nullptr,
                  persistent);
}

Tensor &Module::register_buffer(std::string name, Tensor *member,
                                bool persistent) {
  check_new_name(name, "buffer");
  if (!member)
    throw Error("buffer \"" + name + "\": the member pointer is null");
  return add_slot(buffers_, std::move(name), nullptr, member, persistent);
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
  check_new_name(name, "module");
  if (!module)
    throw Error("submodule \"" + name + "\" is empty");
  children_.emplace_back(std::move(name), std::move(module));
}

/// Visits (dotted name, tensor, slot) for every set slot of the tree, this
/// module's first, then each child's in registration order.
template <typename Visit>
void Module::visit_tensors(bool buffers, bool recurse, const std::string &prefix,
                           Visit &&visit) const {
  for (const TensorSlot &slot : buffers ? buffers_ : parameters_)
    if (slot.tensor && slot.tensor->defined())
      visit(prefix + slot.name, *slot.tensor, slot);
  if (!recurse)
    return;
  for (const auto &[name, child] : children_)
    child->visit_tensors(buffers, recurse, prefix + name + ".", visit);
}

/// PyTorch de-duplicates named_parameters/named_buffers by tensor identity; a
/// shared storage is our identity.
static bool firstSighting(std::unordered_set<const void *> &seen,
                          const Tensor &tensor) {
  return seen.insert(tensor.storage().get()).second;
}

std::vector<std::pair<std::string, Tensor>>
Module::named_tensors(bool buffers, bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> result;
  std::unordered_set<const void *> seen;
  visit_tensors(buffers, recurse, "",
                [&](const std::string &name, const Tensor &t, const auto &) {
                  if (firstSighting(seen, t))
                    result.emplace_back(name, t);
                });
  return result;
}

static std::vector<Tensor>
tensorsOf(std::vector<std::pair<std::string, Tensor>> named) {
  std::vector<Tensor> result;
  for (auto &[name, t] : named)
    result.push_back(std::move(t));
  return result;
}

std::vector<std::pair<std::string, Tensor>>
Module::named_parameters(bool recurse) const {
  return named_tensors(/*buffers=*/false, recurse);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return tensorsOf(named_parameters(recurse));
}

std::vector<std::pair<std::string, Tensor>>
Module::named_buffers(bool recurse) const {
  return named_tensors(/*buffers=*/true, recurse);
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  return tensorsOf(named_buffers(recurse));
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>>
Module::named_children() const {
  return children_;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> result;
  for (auto &[name, child] : children_)
    result.push_back(child);
  return result;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>>
Module::named_modules(const std::string &prefix) {
  // A root that no shared_ptr owns (a module on the stack) is listed through
  // a non-owning pointer.
  std::shared_ptr<Module> root = weak_from_this().lock();
  if (!root)
    root = std::shared_ptr<Module>(std::shared_ptr<Module>(), this);
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> result;
  std::unordered_set<const Module *> seen;
  // Depth-first, pre-order, as torch.nn.Module.named_modules; an explicit
  // stack keeps deep trees off the call stack.
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> stack = {
      {prefix, root}};
  while (!stack.empty()) {
    auto [path, module] = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(module.get()).second)
      continue;
    for (auto it = module->children_.rbegin(); it != module->children_.rend();
         ++it)
      stack.emplace_back(path.empty() ? it->first : path + "." + it->first,
                         it->second);
    result.emplace_back(std::move(path), std::move(module));
  }
  return result;
}

std::vector<std::shared_ptr<Module>> Module::modules() {
  std::vector<std::shared_ptr<Module>> result;
  for (auto &[name, module] : named_modules())
    result.push_back(module);
  return result;
}

bool Module::has_parameter(const std::string &name) const {
  return std::any_of(parameters_.begin(), parameters_.end(),
                     [&](const TensorSlot &s) { return s.name == name; });
}

bool Module::requires_grad(const std::string &name) const {
  for (const TensorSlot &slot : parameters_)
    if (slot.name == name)
      return slot.flag;
  throw Error(name_ + " has no parameter \"" + name + "\"");
}

bool Module::is_persistent_buffer(const std::string &name) const {
  for (const TensorSlot &slot : buffers_)
    if (slot.name == name)
      return slot.flag;
  throw Error(name_ + " has no buffer \"" + name + "\"");
}

StateDict Module::state_dict() const {
  StateDict result;
  // Parameters then persistent buffers per module, recursively, as
  // torch.nn.Module._save_to_state_dict orders them.
  struct Walker {
    StateDict &out;
    void walk(const Module &m, const std::string &prefix) {
      for (const TensorSlot &slot : m.parameters_)
        if (slot.tensor && slot.tensor->defined())
          out.insert(prefix + slot.name, *slot.tensor);
      for (const TensorSlot &slot : m.buffers_)
        if (slot.tensor && slot.tensor->defined() && slot.flag)
          out.insert(prefix + slot.name, *slot.tensor);
      for (const auto &[name, child] : m.children_)
        walk(*child, prefix + name + ".");
    }
  };
  Walker{result}.walk(*this, "");
  return result;
}

LoadResult Module::load_state_dict(const StateDict &state, bool strict) {
  StateDict own = state_dict();
  LoadResult result;
  std::vector<std::string> mismatched;
  for (const auto &[name, tensor] : own) {
    const Tensor *source = state.find(name);
    if (!source)
      result.missing_keys.push_back(name);
    else if (source->shape() != tensor.shape() ||
             source->dtype() != tensor.dtype())
      mismatched.push_back(name + ": copying a param with shape " +
                           shape_str(source->shape()) + " (" +
                           std::string(dtype_name(source->dtype())) +
                           ") from checkpoint, the shape in current model is " +
                           shape_str(tensor.shape()) + " (" +
                           std::string(dtype_name(tensor.dtype())) + ")");
  }
  for (const auto &[name, tensor] : state)
    if (!own.contains(name))
      result.unexpected_keys.push_back(name);

  if (!mismatched.empty() ||
      (strict && (!result.missing_keys.empty() ||
                  !result.unexpected_keys.empty()))) {
    std::ostringstream os;
    os << "Error(s) in loading state_dict for " << name_ << ":";
    auto list = [&](const char *what, const std::vector<std::string> &keys) {
      if (keys.empty())
        return;
      os << "\n\t" << what << ": ";
      for (size_t i = 0; i < keys.size(); ++i)
        os << (i ? ", " : "") << '"' << keys[i] << '"';
      os << ".";
    };
    if (strict) {
      list("Missing key(s) in state_dict", result.missing_keys);
      list("Unexpected key(s) in state_dict", result.unexpected_keys);
    }
    for (const std::string &m : mismatched)
      os << "\n\tsize mismatch for " << m << ".";
    throw Error(os.str());
  }
  // Copy into the existing storages so ties and bound artifacts see it.
  for (const auto &[name, tensor] : own)
    if (const Tensor *source = state.find(name))
      const_cast<Tensor &>(tensor).copy_(*source);
  return result;
}

Module &Module::train(bool on) {
  training_ = on;
  for (auto &[name, child] : children_)
    child->train(on);
  return *this;
}

Module &Module::apply(const std::function<void(Module &)> &fn) {
  for (auto &[name, child] : children_)
    child->apply(fn);
  fn(*this);
  return *this;
}

void Module::print_tree(std::ostream &os, int indent) const {
  os << name_ << "(";
  std::string extra = extra_repr();
  if (children_.empty()) {
    os << extra << ")";
    return;
  }
  std::string pad(indent + 2, ' ');
  if (!extra.empty())
    os << "\n" << pad << extra;
  for (const auto &[name, child] : children_) {
    os << "\n" << pad << "(" << name << "): ";
    child->print_tree(os, indent + 2);
  }
  os << "\n" << std::string(indent, ' ') << ")";
}

void Module::pretty_print(std::ostream &os) const { print_tree(os, 0); }

std::ostream &operator<<(std::ostream &os, const Module &module) {
  module.pretty_print(os);
  return os;
}

} // namespace nn
