//===- Container.cpp - Module and parameter containers --------------------===//
//
// Each container keeps its items in order beside the registrations that give
// them their names; the registrations are what traversal, state_dict, to()
// and clone() see. Copies made by clone() rebuild the item lists from the
// copy's own registrations (AnyModule copies re-point themselves).
//
//===----------------------------------------------------------------------===//

#include "nn/Modules/Container.h"

#include <algorithm>

namespace nn {

//===----------------------------------------------------------------------===//
// AnyModule
//===----------------------------------------------------------------------===//

AnyModule::AnyModule(const AnyModule &other)
    : module_(other.module_), calls_(other.calls_) {
  // calls_'s copies hold copied ModuleHolders, which re-point themselves.
  if (auto copy = detail::cloned_counterpart(module_.get()))
    module_ = std::move(copy);
}

/// "takes and returns one Tensor", "takes 2 Tensors and returns one".
static std::string signature(size_t arguments) {
  if (arguments == 1)
    return "takes and returns one Tensor";
  return "takes " + std::to_string(arguments) +
         " Tensors and returns one Tensor";
}

Tensor AnyModule::call(const std::vector<Tensor> &inputs) const {
  if (!is_callable(inputs.size()))
    throw Error(module_->name() + " has no forward that " +
                signature(inputs.size()) + "; call it through ptr<" +
                module_->name() + "Impl>() or its holder");
  return calls_[inputs.size()](inputs);
}

namespace detail {

std::string parameter_summary(const Tensor &tensor, bool torch_typename) {
  // Python joins the sizes with "x" (a scalar's size is empty).
  std::string size;
  for (int64_t i = 0; i < tensor.dim(); ++i)
    size += (i ? "x" : "") + std::to_string(tensor.size(i));
  std::string type;
  if (!torch_typename) {
    type = "torch." + std::string(dtype_name(tensor.dtype()));
  } else {
    // torch.typename(): the legacy tensor type names.
    switch (tensor.dtype()) {
    case DType::f32:
      type = "torch.FloatTensor";
      break;
    case DType::f64:
      type = "torch.DoubleTensor";
      break;
    case DType::f16:
      type = "torch.HalfTensor";
      break;
    case DType::bf16:
      type = "torch.BFloat16Tensor";
      break;
    case DType::i64:
      type = "torch.LongTensor";
      break;
    case DType::i32:
      type = "torch.IntTensor";
      break;
    case DType::i8:
      type = "torch.CharTensor";
      break;
    case DType::u8:
      type = "torch.ByteTensor";
      break;
    case DType::boolean:
      type = "torch.BoolTensor";
      break;
    }
  }
  return "Parameter containing: [" + type + " of size " + size + "]";
}

} // namespace detail

static Error outOfRange(const std::string &container, size_t index,
                        size_t size) {
  return Error("index " + std::to_string(index) + " is out of range for " +
               container + " of size " + std::to_string(size));
}

namespace detail {
const AnyModule &ModuleSequence::operator[](size_t index) const {
  if (index >= items_.size())
    throw outOfRange(container_, index, items_.size());
  return items_[index];
}
} // namespace detail

//===----------------------------------------------------------------------===//
// Sequential
//===----------------------------------------------------------------------===//

SequentialImpl::SequentialImpl(
    std::initializer_list<std::pair<std::string, AnyModule>> named)
    : SequentialImpl() {
  for (const auto &[name, module] : named)
    push_back(name, module);
}

void SequentialImpl::push_back(AnyModule module) {
  push_back(std::to_string(items_.size()), std::move(module));
}

void SequentialImpl::push_back(std::string name, AnyModule module) {
  for (size_t i = 0; i < child_count(); ++i)
    if (child_at(i).first == name)
      throw Error(this->name() + ": a module named \"" + name +
                  "\" is already in it");
  register_module(std::move(name), module.ptr());
  items_.push_back(std::move(module));
}

Tensor SequentialImpl::chain(const std::vector<Tensor> &inputs) {
  if (items_.empty()) {
    if (inputs.size() != 1)
      throw Error(name() +
                  " is empty: it returns its one input, and was "
                  "given " +
                  std::to_string(inputs.size()));
    return inputs[0];
  }
  Tensor x;
  for (size_t i = 0; i < items_.size(); ++i) {
    size_t arguments = i == 0 ? inputs.size() : 1;
    if (!items_[i].is_callable(arguments))
      throw Error(name() + ": module \"" + child_at(i).first + "\" (" +
                  items_[i]->name() + ") has no forward that " +
                  signature(arguments));
    x = i == 0 ? items_[i].call(inputs) : items_[i](x);
  }
  return x;
}

//===----------------------------------------------------------------------===//
// ModuleList
//===----------------------------------------------------------------------===//

void ModuleListImpl::push_back(AnyModule module) {
  register_module(std::to_string(items_.size()), module.ptr());
  items_.push_back(std::move(module));
}

void ModuleListImpl::insert(size_t index, AnyModule module) {
  if (index > items_.size())
    throw Error(name() + ": can't insert at index " + std::to_string(index) +
                " of a list of size " + std::to_string(items_.size()));
  items_.insert(items_.begin() + index, std::move(module));
  // As PyTorch: every later module moves up one name ("2" becomes "3"),
  // the last name is new and comes last.
  for (size_t i = items_.size(); i-- > index;)
    register_module(std::to_string(i), items_[i].ptr());
}

//===----------------------------------------------------------------------===//
// ModuleDict
//===----------------------------------------------------------------------===//

ModuleDictImpl::ModuleDictImpl(std::initializer_list<Item> modules)
    : Cloneable("ModuleDict") {
  for (const auto &[key, module] : modules)
    insert(key, module);
}

void ModuleDictImpl::insert(std::string key, AnyModule module) {
  register_module(key, module.ptr());
  auto it = std::find_if(items_.begin(), items_.end(),
                         [&](const Item &item) { return item.first == key; });
  if (it != items_.end())
    it->second = std::move(module);
  else
    items_.emplace_back(std::move(key), std::move(module));
}

void ModuleDictImpl::update(const std::vector<Item> &modules) {
  for (const auto &[key, module] : modules)
    insert(key, module);
}

bool ModuleDictImpl::contains(const std::string &key) const {
  return std::any_of(items_.begin(), items_.end(),
                     [&](const Item &item) { return item.first == key; });
}

const AnyModule &ModuleDictImpl::operator[](const std::string &key) const {
  for (const Item &item : items_)
    if (item.first == key)
      return item.second;
  throw Error("ModuleDict has no key \"" + key + "\"");
}

std::vector<std::string> ModuleDictImpl::keys() const {
  std::vector<std::string> result;
  for (const Item &item : items_)
    result.push_back(item.first);
  return result;
}

std::vector<AnyModule> ModuleDictImpl::values() const {
  std::vector<AnyModule> result;
  for (const Item &item : items_)
    result.push_back(item.second);
  return result;
}

//===----------------------------------------------------------------------===//
// ParameterList
//===----------------------------------------------------------------------===//

ParameterListImpl::ParameterListImpl(const ParameterListImpl &other)
    : Cloneable(other) {
  // The copy's registrations are its own; point the items at them.
  for (size_t i = 0; i < other.items_.size(); ++i)
    items_.push_back(&get_parameter(std::to_string(i)));
}

Tensor &ParameterListImpl::append(Tensor parameter, bool requires_grad) {
  Tensor &registered = register_parameter(std::to_string(items_.size()),
                                          std::move(parameter), requires_grad);
  items_.push_back(&registered);
  return registered;
}

void ParameterListImpl::extend(const std::vector<Tensor> &parameters) {
  for (const Tensor &parameter : parameters)
    append(parameter);
}

Tensor &ParameterListImpl::operator[](size_t index) {
  if (index >= items_.size())
    throw outOfRange("ParameterList", index, items_.size());
  return *items_[index];
}

const Tensor &ParameterListImpl::operator[](size_t index) const {
  if (index >= items_.size())
    throw outOfRange("ParameterList", index, items_.size());
  return *items_[index];
}

std::vector<Tensor> ParameterListImpl::values() const {
  std::vector<Tensor> result;
  for (const Tensor *item : items_)
    result.push_back(*item);
  return result;
}

std::string ParameterListImpl::extra_repr() const {
  std::string result;
  for (size_t i = 0; i < items_.size(); ++i)
    result += (i ? "\n" : "") + std::string("  (") + std::to_string(i) +
              "): " + detail::parameter_summary(*items_[i], false);
  return result;
}

//===----------------------------------------------------------------------===//
// ParameterDict
//===----------------------------------------------------------------------===//

ParameterDictImpl::ParameterDictImpl(std::initializer_list<Item> parameters)
    : Cloneable("ParameterDict") {
  for (const auto &[key, parameter] : parameters)
    insert(key, parameter);
}

ParameterDictImpl::ParameterDictImpl(const ParameterDictImpl &other)
    : Cloneable(other) {
  for (const auto &[key, tensor] : other.items_)
    items_.emplace_back(key, &get_parameter(key));
}

Tensor &ParameterDictImpl::insert(std::string key, Tensor parameter,
                                  bool requires_grad) {
  Tensor &registered =
      register_parameter(key, std::move(parameter), requires_grad);
  auto it = std::find_if(items_.begin(), items_.end(),
                         [&](const auto &item) { return item.first == key; });
  if (it != items_.end())
    it->second = &registered;
  else
    items_.emplace_back(std::move(key), &registered);
  return registered;
}

bool ParameterDictImpl::contains(const std::string &key) const {
  return std::any_of(items_.begin(), items_.end(),
                     [&](const auto &item) { return item.first == key; });
}

Tensor &ParameterDictImpl::operator[](const std::string &key) {
  for (auto &[itemKey, tensor] : items_)
    if (itemKey == key)
      return *tensor;
  throw Error("ParameterDict has no key \"" + key + "\"");
}

const Tensor &ParameterDictImpl::operator[](const std::string &key) const {
  return const_cast<ParameterDictImpl &>(*this)[key];
}

std::vector<std::string> ParameterDictImpl::keys() const {
  std::vector<std::string> result;
  for (const auto &[key, tensor] : items_)
    result.push_back(key);
  return result;
}

std::vector<Tensor> ParameterDictImpl::values() const {
  std::vector<Tensor> result;
  for (const auto &[key, tensor] : items_)
    result.push_back(*tensor);
  return result;
}

std::vector<ParameterDictImpl::Item> ParameterDictImpl::items() const {
  std::vector<Item> result;
  for (const auto &[key, tensor] : items_)
    result.emplace_back(key, *tensor);
  return result;
}

std::string ParameterDictImpl::extra_repr() const {
  std::string result;
  for (size_t i = 0; i < items_.size(); ++i)
    result += (i ? "\n" : "") + std::string("  (") + items_[i].first +
              "): " + detail::parameter_summary(*items_[i].second, true);
  return result;
}

} // namespace nn
