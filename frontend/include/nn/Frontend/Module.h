//===- Module.h - The module tree -------------------------------*- C++ -*-===//
//
// nn::Module is torch.nn.Module in C++: parameters, buffers and submodules
// registered by name, traversed in registration order with dotted names,
// state_dict() / load_state_dict(), train() / eval(). The spelling is
// libtorch's (torch::nn::Module); where libtorch and Python differ, Python's
// semantics hold:
//
//  * register_parameter(name, nullptr) keeps an empty slot (bias=False).
//  * Buffers can be non-persistent (left out of state_dict()).
//  * A parameter registered from a member (register_parameter("weight",
//    &weight)) *is* that member, so `head->weight = embed->weight` ties the
//    two modules' weights as Python's attribute assignment does.
//  * named_parameters() lists a shared tensor once; state_dict() lists it
//    under every name.
//  * load_state_dict() reports every missing, unexpected and mismatched key.
//
// Modules kept in a plain std::vector or std::map are not registered, as in
// PyTorch: use ModuleList / ModuleDict or register_module.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_MODULE_H
#define NN_FRONTEND_MODULE_H

#include "nn/Runtime/Error.h"
#include "nn/Runtime/StateDict.h"
#include "nn/Runtime/Tensor.h"

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace nn {

template <typename Contained> class ModuleHolder;

/// What load_state_dict(strict=false) could not match.
struct LoadResult {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

class Module : public std::enable_shared_from_this<Module> {
public:
  /// `name` is the type name shown when printing (defaults to "Module").
  explicit Module(std::string name = "Module");
  virtual ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const std::string &name() const { return name_; }

  //===-- Registration --------------------------------------------------===//

  /// Registers an owned parameter; returns the registered tensor.
  Tensor &register_parameter(std::string name, Tensor tensor,
                             bool requires_grad = true);
  /// Registers the member `*member` itself as the parameter `name`.
  Tensor &register_parameter(std::string name, Tensor *member,
                             bool requires_grad = true);
  /// An empty parameter slot, like register_parameter(name, None) in Python.
  void register_parameter(std::string name, std::nullptr_t);

  /// Registers an owned buffer; non-persistent buffers stay out of
  /// state_dict().
  Tensor &register_buffer(std::string name, Tensor tensor,
                          bool persistent = true);
  /// Registers the member `*member` itself as the buffer `name`.
  Tensor &register_buffer(std::string name, Tensor *member,
                          bool persistent = true);

  template <typename M>
  std::shared_ptr<M> register_module(std::string name,
                                     std::shared_ptr<M> module) {
    add_child(std::move(name), module);
    return module;
  }
  /// Registers the module of a holder (Linear, Sequential, ...) and
  /// returns the holder: `fc1 = register_module("fc1", Linear(784, 256));`
  template <typename Holder,
            typename = std::enable_if_t<std::is_base_of_v<
                ModuleHolder<typename Holder::ContainedType>, Holder>>>
  Holder register_module(std::string name, Holder holder) {
    add_child(std::move(name), holder.ptr());
    return holder;
  }

  //===-- Traversal (registration order, dotted names) ------------------===//

  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>>
  named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>>
  named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>>
  named_children() const;
  /// Every module of the tree, the root first, each once.
  std::vector<std::shared_ptr<Module>> modules();
  std::vector<std::pair<std::string, std::shared_ptr<Module>>>
  named_modules(const std::string &prefix = "");

  /// Whether `name` names a parameter slot of this module (set or empty).
  bool has_parameter(const std::string &name) const;
  /// requires_grad of a parameter of this module (not recursive).
  bool requires_grad(const std::string &name) const;
  /// Whether a buffer of this module (not recursive) is in state_dict().
  bool is_persistent_buffer(const std::string &name) const;

  //===-- State ----------------------------------------------------------===//

  /// Parameters and persistent buffers, every name of a shared tensor.
  StateDict state_dict() const;
  /// Copies values into the existing tensors (ties survive). strict: throws
  /// nn::Error listing every missing, unexpected and shape-mismatched key.
  LoadResult load_state_dict(const StateDict &state, bool strict = true);

  //===-- Mode -----------------------------------------------------------===//

  virtual Module &train(bool on = true);
  Module &eval() { return train(false); }
  bool is_training() const { return training_; }

  /// Calls fn on every module, children before their parent.
  Module &apply(const std::function<void(Module &)> &fn);

  //===-- Printing -------------------------------------------------------===//

  /// The one-line description inside the parentheses, e.g.
  /// "in_features=784, out_features=256, bias=True".
  virtual std::string extra_repr() const { return ""; }
  /// PyTorch's nested repr.
  virtual void pretty_print(std::ostream &os) const;

private:
  struct TensorSlot {
    std::string name;
    std::unique_ptr<Tensor> owned; // set unless the slot is a member
    Tensor *tensor = nullptr;      // null for an empty parameter slot
    bool flag = true;              // requires_grad / persistent
  };

  void check_new_name(const std::string &name, const char *kind) const;
  Tensor &add_slot(std::vector<TensorSlot> &slots, std::string name,
                   std::unique_ptr<Tensor> owned, Tensor *member, bool flag);
  void add_child(std::string name, std::shared_ptr<Module> module);
  void print_tree(std::ostream &os, int indent) const;
  std::vector<std::pair<std::string, Tensor>> named_tensors(bool buffers,
                                                           bool recurse) const;
  template <typename Visit>
  void visit_tensors(bool buffers, bool recurse, const std::string &prefix,
                     Visit &&visit) const;

  std::string name_;
  bool training_ = true;
  std::vector<TensorSlot> parameters_;
  std::vector<TensorSlot> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

std::ostream &operator<<(std::ostream &os, const Module &module);

} // namespace nn

#endif // NN_FRONTEND_MODULE_H
