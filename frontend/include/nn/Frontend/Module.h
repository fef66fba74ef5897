//===- Module.h - The module tree -------------------------------*- C++ -*-===//
//
// nn::Module is torch.nn.Module in C++: parameters, buffers and submodules
// registered by name, traversed in registration order with dotted names,
// state_dict() / load_state_dict(), train() / eval(), to(dtype), clone().
// The spelling is libtorch's (torch::nn::Module); where libtorch and Python
// differ, Python's semantics hold:
//
//  * register_parameter(name, nullptr) keeps an empty slot (bias=False): the
//    name stays taken, and the slot appears in no traversal or state_dict.
//  * Registering a name again with the same kind replaces the entry in
//    place, as assigning an attribute does in Python; a name taken by
//    another kind (a buffer named like a parameter) is an error.
//  * Buffers can be non-persistent (left out of state_dict()).
//  * A parameter registered from a member (register_parameter("weight",
//    &weight)) *is* that member, so `head->weight = embed->weight` ties the
//    two modules' weights as Python's attribute assignment does. Tensors
//    sharing one Storage are one parameter: named_parameters() lists it
//    once, state_dict() under every name.
//  * requires_grad and the gradient live on the Tensor (Tensor::
//    requires_grad_, Tensor::grad), shared by its copies, so freezing by
//    name works on what named_parameters() returns:
//        for (auto &[name, p] : model->named_parameters())
//          if (name.starts_with("encoder.")) p.requires_grad_(false);
//  * load_state_dict() reports every missing, unexpected and mismatched key
//    at once, and is all-or-nothing: it checks everything before it copies
//    anything, so a failed load leaves the module as it was (stricter than
//    PyTorch, which may have copied some tensors before it raises).
//
// Modules kept in a plain std::vector or std::map are not registered, as in
// PyTorch: they get no path, and no traversal, state_dict, to() or clone()
// sees them. Use ModuleList / ModuleDict or register_module.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_MODULE_H
#define NN_FRONTEND_MODULE_H

#include "nn/Frontend/Hooks.h"
#include "nn/Runtime/Device.h"
#include "nn/Runtime/Error.h"
#include "nn/Runtime/StateDict.h"
#include "nn/Runtime/Tensor.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <typeinfo>
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
  using NamedTensor = std::pair<std::string, Tensor>;
  using NamedModule = std::pair<std::string, std::shared_ptr<Module>>;

  /// `name` is the type name shown when printing (defaults to "Module").
  explicit Module(std::string name = "Module");
  virtual ~Module();
  Module &operator=(const Module &) = delete;

  /// The type name, as PyTorch's _get_name(): "Linear", "SimpleMLP".
  const std::string &name() const { return name_; }

  //===-- Registration --------------------------------------------------===//
  //
  // Names must be non-empty and contain no '.'. Every register_* returns
  // what it registered.

  /// Registers an owned parameter and sets its requires_grad.
  Tensor &register_parameter(std::string name, Tensor tensor,
                             bool requires_grad = true);
  /// Registers the member `*member` itself as the parameter `name` (and
  /// sets its requires_grad when it is defined). While the member is
  /// undefined, the slot is empty; assigning the member fills it.
  Tensor &register_parameter(std::string name, Tensor *member,
                             bool requires_grad = true);
  /// An empty parameter slot, like register_parameter(name, None).
  void register_parameter(std::string name, std::nullptr_t);

  /// Registers an owned buffer; non-persistent buffers stay out of
  /// state_dict().
  Tensor &register_buffer(std::string name, Tensor tensor,
                          bool persistent = true);
  /// Registers the member `*member` itself as the buffer `name`.
  Tensor &register_buffer(std::string name, Tensor *member,
                          bool persistent = true);
  /// An empty buffer slot, like register_buffer(name, None).
  void register_buffer(std::string name, std::nullptr_t);

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
  //
  // Tensors sharing a Storage (tied) are listed once, under the first name
  // they are reached by; a module reachable by two paths is visited once.
  // The Tensors returned share storage and gradient slot with the module's.

  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<NamedTensor> named_parameters(bool recurse = true) const;
  /// Names start with `prefix` + "." (or are bare when it is empty).
  std::vector<NamedTensor> named_parameters(const std::string &prefix,
                                            bool recurse = true) const;
  std::vector<NamedTensor> named_parameters(const char *prefix,
                                            bool recurse = true) const {
    return named_parameters(std::string(prefix), recurse);
  }
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<NamedTensor> named_buffers(bool recurse = true) const;
  std::vector<NamedTensor> named_buffers(const std::string &prefix,
                                         bool recurse = true) const;
  std::vector<NamedTensor> named_buffers(const char *prefix,
                                         bool recurse = true) const {
    return named_buffers(std::string(prefix), recurse);
  }
  /// Direct submodules, each once (a module registered under two names is
  /// listed under the first).
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<NamedModule> named_children() const;
  /// Every module of the tree, the root first (depth-first, pre-order),
  /// each once.
  std::vector<std::shared_ptr<Module>> modules();
  std::vector<NamedModule> named_modules(const std::string &prefix = "");

  //===-- Lookup by dotted path (PyTorch's get_submodule & co.) ---------===//

  /// The submodule at `target` ("blocks.0.fc"); this module for "".
  std::shared_ptr<Module> get_submodule(const std::string &target);
  /// The parameter at `target` ("blocks.0.fc.weight"): the registered
  /// Tensor itself, so assigning to it re-points the slot.
  Tensor &get_parameter(const std::string &target);
  /// The buffer at `target` ("bn.running_mean").
  Tensor &get_buffer(const std::string &target);

  /// Whether `name` names a parameter slot of this module (set or empty).
  bool has_parameter(const std::string &name) const;
  /// Whether `name` names a buffer slot of this module (set or empty).
  bool has_buffer(const std::string &name) const;
  /// requires_grad of the parameter `name` of this module (not recursive);
  /// false for an empty slot.
  bool requires_grad(const std::string &name) const;
  /// Whether a buffer of this module (not recursive) is in state_dict().
  bool is_persistent_buffer(const std::string &name) const;

  //===-- Gradients ------------------------------------------------------===//

  /// Sets requires_grad on every parameter of the tree.
  Module &requires_grad_(bool requires_grad = true);
  /// Clears every parameter's gradient: back to None when `set_to_none`
  /// (the default, as in PyTorch 2), otherwise zero-filled in place.
  void zero_grad(bool set_to_none = true);

  //===-- State ----------------------------------------------------------===//

  /// Parameters and persistent buffers under every name they are reachable
  /// by, in PyTorch's order (each module's parameters, then its buffers,
  /// then its children's, recursively).
  StateDict state_dict() const;
  /// Copies values into the existing tensors (ties survive, artifacts bound
  /// to them see the new values). All-or-nothing: every key is checked
  /// first, and on any problem nn::Error lists them all and nothing is
  /// copied. Problems: a shape or dtype different from the module's, two
  /// names of one tied tensor with different values, and (when strict)
  /// missing or unexpected keys. With strict=false, returns the missing and
  /// unexpected keys instead.
  LoadResult load_state_dict(const StateDict &state, bool strict = true);

  //===-- Conversion -----------------------------------------------------===//

  /// Converts every floating-point parameter and buffer (and gradient) to
  /// the floating-point `dtype`; integer and bool buffers stay as they are,
  /// as in PyTorch. Conversion happens in place on the module: its slots
  /// (and members) get the converted tensors, tied ones one shared tensor,
  /// and requires_grad carries over. Tensors copied out of the module
  /// before keep the old data.
  Module &to(DType dtype);
  /// Moves every parameter and buffer (and gradient) to `device`, in place
  /// as to(dtype) converts: the slots get tensors on the device, tied ones
  /// one shared tensor, and requires_grad carries over. Throws, naming the
  /// module and changing nothing, when the device cannot be used (no CUDA
  /// driver, no such GPU). A model on a GPU saves and loads its state_dict
  /// (the data is copied through the host); tracing and compiling it need
  /// the CUDA backend, so for now they refuse it by name.
  Module &to(Device device);

  //===-- Mode -----------------------------------------------------------===//

  /// Sets the training flag of this module and every submodule.
  virtual Module &train(bool on = true);
  Module &eval() { return train(false); }
  bool is_training() const { return training_; }

  /// Calls fn on every module, children before their parent, as PyTorch's
  /// apply (a module shared by two parents is visited under each).
  Module &apply(const std::function<void(Module &)> &fn);

  //===-- Hooks (see Hooks.h) --------------------------------------------===//

  /// Registers a hook that runs before forward whenever this module is
  /// called through its holder; it may return replacement inputs.
  template <typename Fn> RemovableHandle register_forward_pre_hook(Fn hook) {
    return add_hook({.pre = detail::adapt_pre_hook(std::move(hook))});
  }
  /// Registers a hook that runs after forward; it may return replacement
  /// outputs.
  template <typename Fn> RemovableHandle register_forward_hook(Fn hook) {
    return add_hook({.post = detail::adapt_hook(std::move(hook))});
  }
  /// Registers a hook that runs, when the trace is differentiated, with the
  /// gradients of this module's tensor inputs and outputs (grad_input,
  /// grad_output); it may return a replacement grad_input, which is what
  /// flows on to the layers before.
  template <typename Fn> RemovableHandle register_full_backward_hook(Fn hook) {
    return add_hook({.backward = detail::adapt_backward_hook(std::move(hook))});
  }
  /// Registers a hook that runs with the gradients of this module's outputs
  /// (grad_output) before its own backward; it may replace them.
  template <typename Fn>
  RemovableHandle register_full_backward_pre_hook(Fn hook) {
    return add_hook(
        {.backward_pre = detail::adapt_backward_pre_hook(std::move(hook))});
  }
  /// A forward hook that captures this module's output as the extra output
  /// `name` of the traced function (`name.0`, `name.1`, ... when forward
  /// returns several tensors); see nn::capture.
  RemovableHandle register_capture_hook(const std::string &name);

  /// Whether any hook, forward or backward, is registered.
  bool has_hooks() const;
  bool has_forward_hooks() const;
  bool has_backward_hooks() const;
  /// Runs the pre-hooks in registration order, each on the inputs the
  /// previous ones left; returns the final inputs when any hook replaced
  /// them. Throws nn::Error when a replacement has the wrong count.
  std::optional<TensorList> run_forward_pre_hooks(const TensorList &inputs);
  /// As run_forward_pre_hooks, for the forward hooks and the outputs.
  std::optional<TensorList> run_forward_hooks(const TensorList &inputs,
                                              const TensorList &outputs);
  /// For the holder's call while a trace runs and this module has backward
  /// hooks: routes `inputs` through the point where backward will run the
  /// hooks (replacing them with the routed tensors) and returns the call's
  /// number for route_backward_outputs; otherwise changes nothing and
  /// returns -1.
  int64_t route_backward_inputs(TensorList &inputs);
  /// The same for the outputs of call `call`.
  void route_backward_outputs(int64_t call, TensorList &outputs);
  /// Changes whenever a hook of this module is added or removed.
  uint64_t hooks_version() const;

  //===-- Deep copy ------------------------------------------------------===//

  /// A deep copy of the tree: every registered parameter and buffer gets
  /// its own storage (tensors tied inside the tree stay tied to each other,
  /// requires_grad and gradients are copied), every submodule is copied
  /// once (shared submodules stay shared), member-backed parameters are the
  /// copy's members, and holders (Linear, ...) inside the copy point at the
  /// copied submodules. Needs every module's class to derive from
  /// nn::Cloneable<Class>; the base implementation throws.
  virtual std::shared_ptr<Module> clone() const;

  //===-- Printing -------------------------------------------------------===//

  /// The description inside the parentheses, e.g.
  /// "in_features=784, out_features=256, bias=True"; one item per line
  /// when it spans several.
  virtual std::string extra_repr() const { return ""; }
  /// PyTorch's nested repr.
  virtual void pretty_print(std::ostream &os) const;

protected:
  /// Used only by Cloneable<Derived>::clone() (through the derived class's
  /// copy constructor); anywhere else it throws nn::Error.
  Module(const Module &other);

  /// Cloneable's implementation: `copy` copy-constructs the derived object,
  /// of type `type` and `size` bytes.
  std::shared_ptr<Module>
  clone_as(const std::type_info &type, size_t size,
           const std::function<std::shared_ptr<Module>()> &copy) const;

  /// The i-th registered child (duplicates included), for containers.
  const NamedModule &child_at(size_t index) const { return children_[index]; }
  size_t child_count() const { return children_.size(); }

private:
  struct TensorSlot {
    std::string name;
    std::unique_ptr<Tensor> owned; // set unless the slot is a member
    Tensor *tensor = nullptr;      // owned, the member, or null when empty
    bool persistent = true;        // buffers only
  };

  /// Index of the slot or child `name` of the `kind` being registered, or
  /// -1 when new; throws when the name is invalid or taken by another kind.
  int check_name(const std::string &name, const char *kind) const;
  Tensor *put_slot(std::vector<TensorSlot> &slots, const char *kind,
                   std::string name, std::unique_ptr<Tensor> owned,
                   Tensor *member, bool persistent);
  /// The child registered as `name` (first registration), or nullptr.
  std::shared_ptr<Module> child_named(const std::string &name) const;
  /// The module at the dotted `path` below `root`; errors start with
  /// "<function>(\"<target>\"): ".
  static std::shared_ptr<Module> walk_path(std::shared_ptr<Module> root,
                                           const std::string &path,
                                           const char *function,
                                           const std::string &target);
  void add_child(std::string name, std::shared_ptr<Module> module);
  const TensorSlot *find_slot(const std::vector<TensorSlot> &slots,
                              const std::string &name) const;
  Tensor &get_tensor(const std::string &target, bool buffer);
  template <typename Visit>
  void visit_tensors(bool buffers, bool recurse, const std::string &prefix,
                     Visit &&visit) const;
  std::vector<NamedTensor>
  named_tensors(bool buffers, const std::string &prefix, bool recurse) const;
  /// Every set parameter and buffer slot of this module (not recursive).
  std::vector<Tensor *> own_tensor_slots();
  /// Replaces every slot of the tree that `wanted` selects with
  /// `convert(slot)` (see to(DType)).
  void convert_slots(const std::function<bool(const Tensor &)> &wanted,
                     const std::function<Tensor(const Tensor &)> &convert);
  void collect_state(StateDict &out, const std::string &prefix) const;
  RemovableHandle add_hook(detail::ModuleHook hook);

  std::string name_;
  bool training_ = true;
  std::vector<TensorSlot> parameters_;
  std::vector<TensorSlot> buffers_;
  std::vector<NamedModule> children_;
  /// Created by the first hook; a clone gets its own copy of the list.
  std::shared_ptr<detail::HookRegistry> hooks_;
};

std::ostream &operator<<(std::ostream &os, const Module &module);

namespace detail {
/// While a clone() runs on this thread: the copy of `original` when it is a
/// module of the tree copied so far, otherwise nullptr. ModuleHolder and
/// AnyModule call it from their copy constructors so that holders inside a
/// cloned module point at the cloned submodules.
std::shared_ptr<Module> cloned_counterpart(const Module *original);
} // namespace detail

} // namespace nn

#endif // NN_FRONTEND_MODULE_H
