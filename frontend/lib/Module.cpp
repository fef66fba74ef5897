//===- Module.cpp - The module tree ---------------------------------------===//
//
// Registration, traversal, lookup, modes and printing of nn::Module,
// following torch.nn.Module's rules (see Module.h). State (state_dict,
// load_state_dict, to) is in ModuleState.cpp, deep copy in ModuleClone.cpp.
//
//===----------------------------------------------------------------------===//

#include "nn/Frontend/Module.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

namespace nn {

Module::Module(std::string name) : name_(std::move(name)) {}
Module::~Module() = default;

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

int Module::check_name(const std::string &name, const char *kind) const {
  if (name.empty())
    throw Error(name_ + ": " + kind + " name can't be empty");
  if (name.find('.') != std::string::npos)
    throw Error(name_ + ": " + kind + " name can't contain \".\", got \"" +
                name + "\"");
  auto indexIn = [&](const auto &list, auto nameOf) {
    for (size_t i = 0; i < list.size(); ++i)
      if (nameOf(list[i]) == name)
        return static_cast<int>(i);
    return -1;
  };
  auto slotName = [](const TensorSlot &s) -> const std::string & {
    return s.name;
  };
  auto childName = [](const NamedModule &c) -> const std::string & {
    return c.first;
  };
  std::pair<const char *, int> taken[] = {
      {"parameter", indexIn(parameters_, slotName)},
      {"buffer", indexIn(buffers_, slotName)},
      {"module", indexIn(children_, childName)}};
  for (auto [takenKind, index] : taken) {
    if (index < 0)
      continue;
    if (std::string(takenKind) == kind)
      return index;
    throw Error(name_ + ": can't register " + kind + " \"" + name +
                "\": the name is taken by a " + takenKind);
  }
  return -1;
}

Tensor *Module::put_slot(std::vector<TensorSlot> &slots, const char *kind,
                         std::string name, std::unique_ptr<Tensor> owned,
                         Tensor *member, bool persistent) {
  int existing = check_name(name, kind);
  TensorSlot slot;
  slot.name = std::move(name);
  slot.owned = std::move(owned);
  slot.tensor = slot.owned ? slot.owned.get() : member;
  slot.persistent = persistent;
  // Registering a name again replaces the entry where it was, as assigning
  // to a key of Python's _parameters / _buffers dict does.
  if (existing >= 0)
    slots[existing] = std::move(slot);
  else
    slots.push_back(std::move(slot));
  return existing >= 0 ? slots[existing].tensor : slots.back().tensor;
}

Tensor &Module::register_parameter(std::string name, Tensor tensor,
                                   bool requires_grad) {
  if (!tensor.defined())
    throw Error(name_ + ": parameter \"" + name +
                "\" is an undefined "
                "tensor; use register_parameter(name, nullptr) for an empty "
                "slot");
  tensor.set_requires_grad(requires_grad);
  return *put_slot(parameters_, "parameter", std::move(name),
                   std::make_unique<Tensor>(std::move(tensor)), nullptr, true);
}

Tensor &Module::register_parameter(std::string name, Tensor *member,
                                   bool requires_grad) {
  if (!member)
    throw Error(name_ + ": parameter \"" + name +
                "\": the member pointer is null");
  if (member->defined())
    member->set_requires_grad(requires_grad);
  return *put_slot(parameters_, "parameter", std::move(name), nullptr, member,
                   true);
}

void Module::register_parameter(std::string name, std::nullptr_t) {
  put_slot(parameters_, "parameter", std::move(name), nullptr, nullptr, true);
}

Tensor &Module::register_buffer(std::string name, Tensor tensor,
                                bool persistent) {
  if (!tensor.defined())
    throw Error(name_ + ": buffer \"" + name +
                "\" is an undefined tensor; "
                "use register_buffer(name, nullptr) for an empty slot");
  return *put_slot(buffers_, "buffer", std::move(name),
                   std::make_unique<Tensor>(std::move(tensor)), nullptr,
                   persistent);
}

Tensor &Module::register_buffer(std::string name, Tensor *member,
                                bool persistent) {
  if (!member)
    throw Error(name_ + ": buffer \"" + name +
                "\": the member pointer is null");
  return *put_slot(buffers_, "buffer", std::move(name), nullptr, member,
                   persistent);
}

void Module::register_buffer(std::string name, std::nullptr_t) {
  put_slot(buffers_, "buffer", std::move(name), nullptr, nullptr, true);
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
  int existing = check_name(name, "module");
  if (!module)
    throw Error(name_ + ": submodule \"" + name +
                "\" is an empty module "
                "(nullptr)");
  // A module that contains this one would make the tree a cycle.
  std::vector<const Module *> stack = {module.get()};
  std::unordered_set<const Module *> seen;
  while (!stack.empty()) {
    const Module *m = stack.back();
    stack.pop_back();
    if (m == this)
      throw Error(name_ + ": can't register module \"" + name + "\": it " +
                  (module.get() == this ? "is" : "contains") +
                  " this module, and a module tree can't contain itself");
    if (!seen.insert(m).second)
      continue;
    for (const auto &[childName, child] : m->children_)
      stack.push_back(child.get());
  }
  if (existing >= 0)
    children_[existing].second = std::move(module);
  else
    children_.emplace_back(std::move(name), std::move(module));
}

//===----------------------------------------------------------------------===//
// Traversal
//===----------------------------------------------------------------------===//

/// Visits (dotted name, tensor) for every set slot of the tree, this
/// module's first, then each child's in registration order, every path.
template <typename Visit>
void Module::visit_tensors(bool buffers, bool recurse,
                           const std::string &prefix, Visit &&visit) const {
  for (const TensorSlot &slot : buffers ? buffers_ : parameters_)
    if (slot.tensor && slot.tensor->defined())
      visit(prefix + slot.name, *slot.tensor);
  if (!recurse)
    return;
  for (const auto &[name, child] : children_)
    child->visit_tensors(buffers, recurse, prefix + name + ".", visit);
}

/// A tensor's identity for de-duplication: its storage (what ties share),
/// or the slot for a symbolic tensor, which has none.
static const void *identityOf(const Tensor &tensor) {
  return tensor.storage() ? static_cast<const void *>(tensor.storage().get())
                          : static_cast<const void *>(&tensor);
}

std::vector<Module::NamedTensor>
Module::named_tensors(bool buffers, const std::string &prefix,
                      bool recurse) const {
  std::vector<NamedTensor> result;
  std::unordered_set<const void *> seen;
  visit_tensors(buffers, recurse, prefix.empty() ? prefix : prefix + ".",
                [&](const std::string &name, const Tensor &t) {
                  if (seen.insert(identityOf(t)).second)
                    result.emplace_back(name, t);
                });
  return result;
}

static std::vector<Tensor> tensorsOf(std::vector<Module::NamedTensor> named) {
  std::vector<Tensor> result;
  result.reserve(named.size());
  for (auto &[name, t] : named)
    result.push_back(std::move(t));
  return result;
}

std::vector<Module::NamedTensor> Module::named_parameters(bool recurse) const {
  return named_tensors(/*buffers=*/false, "", recurse);
}

std::vector<Module::NamedTensor>
Module::named_parameters(const std::string &prefix, bool recurse) const {
  return named_tensors(/*buffers=*/false, prefix, recurse);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return tensorsOf(named_parameters(recurse));
}

std::vector<Module::NamedTensor> Module::named_buffers(bool recurse) const {
  return named_tensors(/*buffers=*/true, "", recurse);
}

std::vector<Module::NamedTensor>
Module::named_buffers(const std::string &prefix, bool recurse) const {
  return named_tensors(/*buffers=*/true, prefix, recurse);
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  return tensorsOf(named_buffers(recurse));
}

std::vector<Module::NamedModule> Module::named_children() const {
  std::vector<NamedModule> result;
  std::unordered_set<const Module *> seen;
  for (const auto &[name, child] : children_)
    if (seen.insert(child.get()).second)
      result.emplace_back(name, child);
  return result;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> result;
  for (auto &[name, child] : named_children())
    result.push_back(std::move(child));
  return result;
}

/// `module` as a shared_ptr: its owner's when a shared_ptr owns it, a
/// non-owning one for a module on the stack.
static std::shared_ptr<Module> sharedOf(Module &module) {
  std::shared_ptr<Module> owned = module.weak_from_this().lock();
  return owned ? owned
               : std::shared_ptr<Module>(std::shared_ptr<Module>(), &module);
}

std::vector<Module::NamedModule>
Module::named_modules(const std::string &prefix) {
  std::vector<NamedModule> result;
  std::unordered_set<const Module *> seen;
  // Depth-first, pre-order, as torch.nn.Module.named_modules; an explicit
  // stack keeps deep trees off the call stack.
  std::vector<NamedModule> stack = {{prefix, sharedOf(*this)}};
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
    result.push_back(std::move(module));
  return result;
}

//===----------------------------------------------------------------------===//
// Lookup
//===----------------------------------------------------------------------===//

std::shared_ptr<Module> Module::walk_path(std::shared_ptr<Module> root,
                                          const std::string &path,
                                          const char *function,
                                          const std::string &target) {
  std::shared_ptr<Module> module = std::move(root);
  std::string walked;
  size_t begin = 0;
  while (!path.empty()) {
    size_t end = path.find('.', begin);
    std::string item = path.substr(begin, end - begin);
    std::shared_ptr<Module> next = module->child_named(item);
    if (!next)
      throw Error(std::string(function) + "(\"" + target + "\"): " +
                  (walked.empty() ? module->name()
                                  : module->name() + " at \"" + walked + "\"") +
                  " has no submodule \"" + item + "\"");
    module = std::move(next);
    walked += (walked.empty() ? "" : ".") + item;
    if (end == std::string::npos)
      break;
    begin = end + 1;
  }
  return module;
}

std::shared_ptr<Module> Module::child_named(const std::string &name) const {
  for (const auto &[childName, child] : children_)
    if (childName == name)
      return child;
  return nullptr;
}

std::shared_ptr<Module> Module::get_submodule(const std::string &target) {
  return walk_path(sharedOf(*this), target, "get_submodule", target);
}

const Module::TensorSlot *
Module::find_slot(const std::vector<TensorSlot> &slots,
                  const std::string &name) const {
  for (const TensorSlot &slot : slots)
    if (slot.name == name)
      return &slot;
  return nullptr;
}

Tensor &Module::get_tensor(const std::string &target, bool buffer) {
  const char *kind = buffer ? "buffer" : "parameter";
  const char *function = buffer ? "get_buffer" : "get_parameter";
  size_t dot = target.rfind('.');
  std::string path = dot == std::string::npos ? "" : target.substr(0, dot);
  std::string name = target.substr(dot == std::string::npos ? 0 : dot + 1);
  std::shared_ptr<Module> owner =
      walk_path(sharedOf(*this), path, function, target);
  const TensorSlot *slot =
      find_slot(buffer ? owner->buffers_ : owner->parameters_, name);
  std::string where =
      path.empty() ? owner->name_ : owner->name_ + " at \"" + path + "\"";
  if (!slot)
    throw Error(std::string(function) + "(\"" + target + "\"): " + where +
                " has no " + kind + " \"" + name + "\"");
  if (!slot->tensor || !slot->tensor->defined())
    throw Error(std::string(function) + "(\"" + target + "\"): the " + kind +
                " \"" + name + "\" of " + where + " is an empty slot");
  return *slot->tensor;
}

Tensor &Module::get_parameter(const std::string &target) {
  return get_tensor(target, /*buffer=*/false);
}

Tensor &Module::get_buffer(const std::string &target) {
  return get_tensor(target, /*buffer=*/true);
}

bool Module::has_parameter(const std::string &name) const {
  return find_slot(parameters_, name) != nullptr;
}

bool Module::has_buffer(const std::string &name) const {
  return find_slot(buffers_, name) != nullptr;
}

bool Module::requires_grad(const std::string &name) const {
  if (const TensorSlot *slot = find_slot(parameters_, name))
    return slot->tensor && slot->tensor->requires_grad();
  throw Error(name_ + " has no parameter \"" + name + "\"");
}

bool Module::is_persistent_buffer(const std::string &name) const {
  if (const TensorSlot *slot = find_slot(buffers_, name))
    return slot->persistent;
  throw Error(name_ + " has no buffer \"" + name + "\"");
}

//===----------------------------------------------------------------------===//
// Gradients and modes
//===----------------------------------------------------------------------===//

Module &Module::requires_grad_(bool requires_grad) {
  for (Tensor &p : parameters())
    p.set_requires_grad(requires_grad);
  return *this;
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor &p : parameters()) {
    Tensor grad = p.grad();
    if (!grad.defined())
      continue;
    if (set_to_none)
      p.set_grad(Tensor());
    else if (grad.is_cuda())
      grad.copy_(Tensor::zeros(grad.shape(), grad.dtype()));
    else if (size_t n = grad.nbytes())
      std::fill_n(static_cast<unsigned char *>(grad.raw_data()), n, 0);
  }
}

Module &Module::train(bool on) {
  training_ = on;
  for (auto &child : children())
    child->train(on);
  return *this;
}

Module &Module::apply(const std::function<void(Module &)> &fn) {
  for (auto &child : children())
    child->apply(fn);
  fn(*this);
  return *this;
}

std::shared_ptr<Module> Module::clone() const {
  throw Error("clone() is not implemented for " + name_ +
              ": derive its class from nn::Cloneable<Class> instead of "
              "nn::Module");
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (true) {
    size_t end = text.find('\n', begin);
    lines.push_back(text.substr(begin, end - begin));
    if (end == std::string::npos)
      return lines;
    begin = end + 1;
  }
}

/// Indents every line but the first, as torch.nn.modules.module._addindent.
static std::string addIndent(const std::string &text, int spaces) {
  std::string result;
  std::string pad(spaces, ' ');
  for (char c : text) {
    result += c;
    if (c == '\n')
      result += pad;
  }
  return result;
}

void Module::pretty_print(std::ostream &os) const {
  // torch.nn.Module.__repr__: the extra_repr lines, then "(name): child"
  // lines, all indented by two; a lone extra_repr line stays inline.
  std::vector<std::string> lines;
  std::string extra = extra_repr();
  if (!extra.empty())
    lines = splitLines(extra);
  size_t extraLines = lines.size();
  for (const auto &[name, child] : children_) {
    std::ostringstream childRepr;
    child->pretty_print(childRepr);
    lines.push_back("(" + name + "): " + addIndent(childRepr.str(), 2));
  }
  os << name_ << "(";
  if (extraLines == 1 && lines.size() == 1) {
    os << lines[0];
  } else if (!lines.empty()) {
    for (const std::string &line : lines)
      os << "\n  " << line;
    os << "\n";
  }
  os << ")";
}

std::ostream &operator<<(std::ostream &os, const Module &module) {
  module.pretty_print(os);
  return os;
}

} // namespace nn
