//===- StateDict.cpp - Ordered name -> Tensor map ---------------*- C++ -*-===//
//
// A vector of (name, Tensor) in insertion order plus a hash index from name
// to position, so lookups are O(1) and iteration follows registration order
// as PyTorch's OrderedDict does.
//
//===----------------------------------------------------------------------===//

#include "nn/Runtime/StateDict.h"
#include "nn/Runtime/Error.h"

namespace nn {

void StateDict::insert(std::string name, Tensor tensor) {
  if (index_.count(name))
    throw Error("StateDict: duplicate key '" + name + "'");
  index_.emplace(name, items_.size());
  items_.emplace_back(std::move(name), std::move(tensor));
}

void StateDict::insert_or_assign(std::string name, Tensor tensor) {
  if (auto it = index_.find(name); it != index_.end()) {
    items_[it->second].second = std::move(tensor);
    return;
  }
  index_.emplace(name, items_.size());
  items_.emplace_back(std::move(name), std::move(tensor));
}

bool StateDict::contains(std::string_view name) const {
  return find(name) != nullptr;
}

const Tensor *StateDict::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &items_[it->second].second;
}

Tensor *StateDict::find(std::string_view name) {
  return const_cast<Tensor *>(static_cast<const StateDict *>(this)->find(name));
}

const Tensor &StateDict::at(std::string_view name) const {
  if (const Tensor *t = find(name))
    return *t;
  throw Error("StateDict: no tensor named '" + std::string(name) + "'");
}

Tensor &StateDict::at(std::string_view name) {
  return const_cast<Tensor &>(static_cast<const StateDict *>(this)->at(name));
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const Item &item : items_)
    out.push_back(item.first);
  return out;
}

} // namespace nn
