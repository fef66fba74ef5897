//===- Hooks.h - Forward and backward hooks and their handles ---*- C++ -*-===//
//
// PyTorch's module hooks, for a static framework: they run when a module is
// called through its holder, which happens while nn::trace runs forward, so
// they see symbolic tensors and what they return replaces the input or
// output *in the traced graph*.
//
//   auto handle = model->block2->register_forward_hook(
//       [](nn::Module &, const nn::TensorList &inputs, const nn::Tensor &out) {
//         return out * 2.0;                     // replaces block2's output
//       });
//   handle.remove();                            // or nn::ScopedHook for RAII
//
// A hook sees the module's Tensor arguments in order (other arguments, such
// as std::optional<Tensor> masks or options, pass through unseen) and its
// outputs flattened (a Tensor, or every Tensor in a tuple/pair/vector, depth
// first). A replacement must have as many tensors as it replaces.
//
// Accepted hook forms (returning void observes only):
//   pre-hook:  (Module&, const TensorList& inputs)
//                -> void | TensorList | std::optional<TensorList>
//   hook:      (Module&, const TensorList& inputs, const TensorList& outputs)
//                -> void | TensorList | std::optional<TensorList>
//              (Module&, const TensorList& inputs, const Tensor& output)
//                -> void | Tensor | std::optional<Tensor>   (one output)
//
// Backward hooks (register_full_backward_hook / _pre_hook) run when the
// trace is differentiated (nn::TrainStep, TracedModule::differentiate), on
// the symbolic gradients of the module's outputs (grad_output) and tensor
// inputs (grad_input), as PyTorch's run during loss.backward():
//   pre-hook:  (Module&, const TensorList& grad_output)
//                -> void | TensorList | std::optional<TensorList>
//              (a result replaces grad_output)
//   hook:      (Module&, const TensorList& grad_input,
//               const TensorList& grad_output)
//                -> void | TensorList | std::optional<TensorList>
//              (a result replaces grad_input)
// An undefined Tensor is PyTorch's None: the gradient of an input that does
// not require one (the model's inputs, integer tensors). A module called
// several times runs its hooks once per call, last call first; one whose
// outputs the loss does not reach runs none.
//
// To make an intermediate (or a gradient) an extra output of the compiled
// function, capture it (nn::capture, or Module::register_capture_hook), see
// Tracer.h.
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_HOOKS_H
#define NN_FRONTEND_HOOKS_H

#include "nn/Runtime/Error.h"
#include "nn/Runtime/HookHandle.h"
#include "nn/Runtime/Tensor.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace nn {

class Module;
using TensorList = std::vector<Tensor>;

/// Runs before forward; a result replaces the tensor inputs.
using ForwardPreHook =
    std::function<std::optional<TensorList>(Module &, const TensorList &)>;
/// Runs after forward; a result replaces the (flattened) outputs.
using ForwardHook = std::function<std::optional<TensorList>(
    Module &, const TensorList &, const TensorList &)>;

/// Runs when the module's outputs get their gradients; a result replaces
/// grad_output.
using BackwardPreHook =
    std::function<std::optional<TensorList>(Module &, const TensorList &)>;
/// Runs when the module's inputs have their gradients; a result replaces
/// grad_input.
using BackwardHook = std::function<std::optional<TensorList>(
    Module &, const TensorList &, const TensorList &)>;

namespace detail {
/// One hook of a module: exactly one of the four is set.
struct ModuleHook {
  uint64_t id = 0;
  ForwardPreHook pre;
  ForwardHook post;
  BackwardPreHook backward_pre;
  BackwardHook backward;
};
/// The hooks of one module, in registration order. Shared with the handles
/// (weakly); its version is the compiled cache's guard.
using HookRegistry = HookList<ModuleHook>;
} // namespace detail

namespace detail {

/// Calls `visit(Tensor&)` on every Tensor inside `value`: a Tensor, a
/// std::optional<Tensor> holding one, or a tuple/pair/vector of those,
/// depth first.
template <typename T, typename Visit>
void for_each_tensor(T &value, Visit &&visit) {
  if constexpr (std::is_same_v<T, Tensor>) {
    visit(value);
  } else if constexpr (requires {
                         value.has_value();
                         *value;
                       }) {
    if (value.has_value())
      for_each_tensor(*value, visit);
  } else if constexpr (requires { std::tuple_size<T>::value; }) {
    std::apply(
        [&](auto &...elements) { (for_each_tensor(elements, visit), ...); },
        value);
  } else if constexpr (requires {
                         value.begin();
                         value.end();
                         typename T::value_type;
                       }) {
    for (auto &element : value)
      for_each_tensor(element, visit);
  }
}

template <typename T> TensorList gather_tensors(T &value) {
  TensorList tensors;
  for_each_tensor(value, [&](Tensor &t) { tensors.push_back(t); });
  return tensors;
}

/// Writes `tensors` back into `value` in gather order; the counts match
/// (checked by the caller).
template <typename T>
void scatter_tensors(T &value, const TensorList &tensors) {
  size_t next = 0;
  for_each_tensor(value, [&](Tensor &t) { t = tensors[next++]; });
}

/// Adapts a hook of (Module&, const TensorList&...) returning void,
/// TensorList or std::optional<TensorList> to the std::function form.
template <typename... Lists, typename Fn>
std::function<std::optional<TensorList>(Module &, const Lists &...)>
adapt_list_hook(Fn fn) {
  return [fn = std::move(fn)](
             Module &m,
             const Lists &...lists) mutable -> std::optional<TensorList> {
    using R = std::invoke_result_t<Fn &, Module &, const Lists &...>;
    if constexpr (std::is_void_v<R>) {
      fn(m, lists...);
      return std::nullopt;
    } else {
      return fn(m, lists...);
    }
  };
}

/// Adapts the accepted pre-hook forms to ForwardPreHook.
template <typename Fn> ForwardPreHook adapt_pre_hook(Fn fn) {
  static_assert(std::is_invocable_v<Fn &, Module &, const TensorList &>,
                "a forward pre-hook is (Module&, const TensorList&)");
  return adapt_list_hook<TensorList>(std::move(fn));
}

/// Adapts the accepted backward pre-hook forms to BackwardPreHook.
template <typename Fn> BackwardPreHook adapt_backward_pre_hook(Fn fn) {
  static_assert(std::is_invocable_v<Fn &, Module &, const TensorList &>,
                "a backward pre-hook is (Module&, const TensorList& "
                "grad_output)");
  return adapt_list_hook<TensorList>(std::move(fn));
}

/// Adapts the accepted backward-hook forms to BackwardHook.
template <typename Fn> BackwardHook adapt_backward_hook(Fn fn) {
  static_assert(std::is_invocable_v<Fn &, Module &, const TensorList &,
                                    const TensorList &>,
                "a full backward hook is (Module&, const TensorList& "
                "grad_input, const TensorList& grad_output)");
  return adapt_list_hook<TensorList, TensorList>(std::move(fn));
}

/// Adapts the accepted forward-hook forms to ForwardHook.
template <typename Fn> ForwardHook adapt_hook(Fn fn) {
  constexpr bool listForm =
      std::is_invocable_v<Fn &, Module &, const TensorList &,
                          const TensorList &>;
  constexpr bool tensorForm =
      std::is_invocable_v<Fn &, Module &, const TensorList &, const Tensor &>;
  static_assert(listForm || tensorForm,
                "a forward hook is (Module&, const TensorList& inputs, "
                "const TensorList& outputs) or (..., const Tensor& output)");
  return [fn = std::move(fn)](
             Module &m, const TensorList &in,
             const TensorList &out) mutable -> std::optional<TensorList> {
    if constexpr (listForm) {
      using R = std::invoke_result_t<Fn &, Module &, const TensorList &,
                                     const TensorList &>;
      if constexpr (std::is_void_v<R>) {
        fn(m, in, out);
        return std::nullopt;
      } else {
        return fn(m, in, out);
      }
    } else {
      if (out.size() != 1)
        throw Error("a forward hook taking one output tensor got " +
                    std::to_string(out.size()));
      using R = std::invoke_result_t<Fn &, Module &, const TensorList &,
                                     const Tensor &>;
      if constexpr (std::is_void_v<R>) {
        fn(m, in, out[0]);
        return std::nullopt;
      } else {
        std::optional<Tensor> replaced = fn(m, in, out[0]);
        if (!replaced)
          return std::nullopt;
        return TensorList{*replaced};
      }
    }
  };
}

} // namespace detail
} // namespace nn

#endif // NN_FRONTEND_HOOKS_H
