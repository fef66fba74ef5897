//===- StateDict.h - Ordered name -> Tensor map -----------------*- C++ -*-===//
//
// A state_dict as PyTorch has it: tensors under dotted names
// ("layers.0.weight", "bn.running_mean"), in insertion order. Tied tensors
// appear under every name and share one Storage.
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_STATEDICT_H
#define NN_RUNTIME_STATEDICT_H

#include "nn/Runtime/Tensor.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nn {

class StateDict {
public:
  using Item = std::pair<std::string, Tensor>;

  /// Adds `name`; throws nn::Error if the name is already present.
  void insert(std::string name, Tensor tensor);
  /// Adds or replaces `name` (a replaced entry keeps its position).
  void insert_or_assign(std::string name, Tensor tensor);
  bool contains(std::string_view name) const;
  /// nullptr when absent.
  const Tensor *find(std::string_view name) const;
  Tensor *find(std::string_view name);
  /// Throws nn::Error naming the key when absent.
  const Tensor &at(std::string_view name) const;
  Tensor &at(std::string_view name);

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const;
  std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  std::vector<Item>::const_iterator end() const { return items_.end(); }
  const std::vector<Item> &items() const { return items_; }

private:
  std::vector<Item> items_;
  std::unordered_map<std::string, size_t> index_;
};

} // namespace nn

#endif // NN_RUNTIME_STATEDICT_H
