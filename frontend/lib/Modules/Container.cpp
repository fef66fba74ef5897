//===- Container.cpp - Module containers ----------------------------------===//

#include "nn/Modules/Container.h"

namespace nn {

SequentialImpl::SequentialImpl(
    std::initializer_list<std::pair<std::string, AnyModule>> named)
    : Module("Sequential") {
  for (const auto &[name, module] : named)
    push_back(name, module);
}

void SequentialImpl::push_back(AnyModule module) {
  push_back(std::to_string(items_.size()), std::move(module));
}

void SequentialImpl::push_back(std::string name, AnyModule module) {
  register_module(std::move(name), module.ptr());
  items_.push_back(std::move(module));
}

std::shared_ptr<Module> SequentialImpl::operator[](size_t index) const {
  if (index >= items_.size())
    throw Error("index " + std::to_string(index) +
                " is out of range for Sequential of size " +
                std::to_string(items_.size()));
  return items_[index].ptr();
}

Tensor SequentialImpl::forward(const Tensor &input) {
  Tensor x = input;
  for (const AnyModule &item : items_)
    x = item.forward(x);
  return x;
}

} // namespace nn
