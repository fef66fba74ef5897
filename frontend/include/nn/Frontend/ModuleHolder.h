//===- ModuleHolder.h - Shared handles to modules ---------------*- C++ -*-===//
//
// ModuleHolder<LinearImpl> is libtorch's module holder: a shared handle with
// `->` to reach the module and `()` to call its forward. Calling through the
// holder is what attributes traced ops to the module's path (and, later, runs
// its hooks). NN_MODULE(Linear) declares the holder class `Linear` for
// `LinearImpl`, as TORCH_MODULE does.
//
// Copying a holder shares the module, except while Module::clone() copies
// a tree: then a holder of a module of that tree points at the module's
// copy (that is how a cloned model's `fc1` members reach the cloned
// layers).
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_MODULEHOLDER_H
#define NN_FRONTEND_MODULEHOLDER_H

#include "nn/Frontend/Cloneable.h"
#include "nn/Frontend/Module.h"

#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace nn {
namespace detail {

/// While alive during a trace, ops are located at `module`'s path in the
/// traced tree. Outside a trace it does nothing.
class ModuleCallScope {
public:
  explicit ModuleCallScope(const Module &module);
  ~ModuleCallScope();
  ModuleCallScope(const ModuleCallScope &) = delete;
  ModuleCallScope &operator=(const ModuleCallScope &) = delete;

private:
  bool pushed_;
};

} // namespace detail

template <typename Contained> class ModuleHolder {
public:
  using ContainedType = Contained;

  /// Default-constructs the module (when its Impl allows it).
  ModuleHolder() : impl_(std::make_shared<Contained>()) {}
  /// An empty holder, to be assigned later: `Linear fc{nullptr};`.
  ModuleHolder(std::nullptr_t) {}
  /// Wraps an existing module.
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}
  /// Constructs the module from its constructor arguments (a single
  /// argument that is a holder, a shared_ptr or nullptr means the
  /// constructors above; `Sequential(Sequential(...), ReLU())` is this one).
  template <
      typename Head, typename... Tail,
      typename = std::enable_if_t<
          sizeof...(Tail) != 0 ||
          (!std::is_same_v<std::decay_t<Head>, std::nullptr_t> &&
           !std::is_base_of_v<ModuleHolder, std::decay_t<Head>> &&
           !std::is_same_v<std::decay_t<Head>, std::shared_ptr<Contained>>)>>
  explicit ModuleHolder(Head &&head, Tail &&...tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head),
                                          std::forward<Tail>(tail)...)) {}

  ModuleHolder(const ModuleHolder &other) : impl_(counterpart(other.impl_)) {}
  ModuleHolder(ModuleHolder &&other) noexcept = default;
  ModuleHolder &operator=(const ModuleHolder &other) = default;
  ModuleHolder &operator=(ModuleHolder &&other) noexcept = default;

  Contained *operator->() const { return get(); }
  Contained &operator*() const { return *get(); }
  Contained *get() const {
    if (!impl_)
      throw Error("nn: accessing an empty module holder");
    return impl_.get();
  }
  const std::shared_ptr<Contained> &ptr() const { return impl_; }
  bool is_empty() const { return impl_ == nullptr; }

  /// A deep copy of the module (see Module::clone), typed:
  /// `Linear copy = fc.clone();`
  std::shared_ptr<Contained> clone() const {
    return std::dynamic_pointer_cast<Contained>(get()->clone());
  }

  /// Indexes the module (containers): `list[0]`, `dict["head"]`.
  template <typename Key> decltype(auto) operator[](Key &&key) const {
    return (*get())[std::forward<Key>(key)];
  }

  /// Calls forward, attributing traced ops to this module, with its hooks
  /// around it. (Absent when the module has no forward taking these
  /// arguments, e.g. ModuleList.)
  template <typename... Args, typename C = Contained>
  auto operator()(Args &&...args) const
      -> decltype(std::declval<C &>().forward(std::forward<Args>(args)...)) {
    detail::ModuleCallScope scope(*get());
    if (!impl_->has_hooks())
      return impl_->forward(std::forward<Args>(args)...);
    return call_with_hooks(std::forward<Args>(args)...);
  }

private:
  /// forward on copies of the arguments, so that pre-hooks can replace the
  /// tensor ones, then the forward hooks on the outputs; as in PyTorch's
  /// Module._call_impl, the backward hooks' routing goes between the
  /// forward pre-hooks and forward, and after the forward hooks.
  template <typename... Args> auto call_with_hooks(Args &&...args) const {
    std::tuple<std::decay_t<Args>...> argv(std::forward<Args>(args)...);
    TensorList inputs = detail::gather_tensors(argv);
    if (std::optional<TensorList> replaced =
            impl_->run_forward_pre_hooks(inputs)) {
      detail::scatter_tensors(argv, *replaced);
      inputs = std::move(*replaced);
    }
    int64_t call = impl_->route_backward_inputs(inputs);
    if (call >= 0)
      detail::scatter_tensors(argv, inputs);
    auto output =
        std::apply([&](auto &...arg) { return impl_->forward(arg...); }, argv);
    TensorList outputs = detail::gather_tensors(output);
    if (std::optional<TensorList> replaced =
            impl_->run_forward_hooks(inputs, outputs)) {
      detail::scatter_tensors(output, *replaced);
      outputs = std::move(*replaced);
    }
    if (call >= 0) {
      impl_->route_backward_outputs(call, outputs);
      detail::scatter_tensors(output, outputs);
    }
    return output;
  }

  static std::shared_ptr<Contained>
  counterpart(const std::shared_ptr<Contained> &impl) {
    if (auto copy = detail::cloned_counterpart(impl.get()))
      return std::dynamic_pointer_cast<Contained>(copy);
    return impl;
  }

  std::shared_ptr<Contained> impl_;
};

template <typename C>
std::ostream &operator<<(std::ostream &os, const ModuleHolder<C> &holder) {
  return os << *holder;
}

} // namespace nn

#define NN_MODULE(Name)                                                        \
  class Name : public ::nn::ModuleHolder<Name##Impl> {                         \
  public:                                                                      \
    using ::nn::ModuleHolder<Name##Impl>::ModuleHolder;                        \
    using Impl = Name##Impl;                                                   \
  }

#endif // NN_FRONTEND_MODULEHOLDER_H
