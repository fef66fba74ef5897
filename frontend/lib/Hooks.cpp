//===- Hooks.cpp - Module hooks -------------------------------------------===//
//
// Registering and running forward hooks; the backward hooks run when a
// trace is differentiated (Differentiate.cpp).
//
//===----------------------------------------------------------------------===//

#include "nn/Frontend/Hooks.h"
#include "nn/Frontend/Module.h"
#include "nn/Tracer.h"

#include <algorithm>

namespace nn {

RemovableHandle Module::add_hook(detail::ModuleHook hook) {
  if (!hooks_)
    hooks_ = std::make_shared<detail::HookRegistry>();
  uint64_t id = hooks_->add(std::move(hook));
  return RemovableHandle(hooks_, id);
}

bool Module::has_hooks() const { return hooks_ && !hooks_->entries().empty(); }

bool Module::has_forward_hooks() const {
  return hooks_ &&
         std::any_of(
             hooks_->entries().begin(), hooks_->entries().end(),
             [](const detail::ModuleHook &h) { return h.pre || h.post; });
}

bool Module::has_backward_hooks() const {
  return hooks_ &&
         std::any_of(hooks_->entries().begin(), hooks_->entries().end(),
                     [](const detail::ModuleHook &h) {
                       return h.backward_pre || h.backward;
                     });
}

uint64_t Module::hooks_version() const {
  return hooks_ ? hooks_->version() : 0;
}

/// Runs the hooks that `call` selects on `current` in order; `what` names
/// the hook kind in errors.
template <typename Call>
static std::optional<TensorList>
runHooks(Module &module, const std::shared_ptr<detail::HookRegistry> &hooks,
         TensorList current, const char *what, Call &&call) {
  if (!hooks)
    return std::nullopt;
  bool replaced = false;
  // A copy: a hook may add or remove hooks while it runs.
  std::vector<detail::ModuleHook> entries = hooks->entries();
  for (auto &entry : entries) {
    std::optional<TensorList> result = call(entry, current);
    if (!result)
      continue;
    if (result->size() != current.size())
      throw Error(module.name() + ": a " + what + " returned " +
                  std::to_string(result->size()) + " tensors for " +
                  std::to_string(current.size()));
    current = std::move(*result);
    replaced = true;
  }
  if (!replaced)
    return std::nullopt;
  return current;
}

std::optional<TensorList>
Module::run_forward_pre_hooks(const TensorList &inputs) {
  return runHooks(
      *this, hooks_, inputs, "forward pre-hook",
      [&](auto &entry, const TensorList &current) -> std::optional<TensorList> {
        if (!entry.pre)
          return std::nullopt;
        return entry.pre(*this, current);
      });
}

std::optional<TensorList> Module::run_forward_hooks(const TensorList &inputs,
                                                    const TensorList &outputs) {
  return runHooks(
      *this, hooks_, outputs, "forward hook",
      [&](auto &entry, const TensorList &current) -> std::optional<TensorList> {
        if (!entry.post)
          return std::nullopt;
        return entry.post(*this, inputs, current);
      });
}

RemovableHandle Module::register_capture_hook(const std::string &name) {
  return register_forward_hook(
      [name](Module &, const TensorList &, const TensorList &outputs) {
        if (outputs.size() == 1) {
          capture(name, outputs[0]);
          return;
        }
        for (size_t i = 0; i < outputs.size(); ++i)
          capture(name + "." + std::to_string(i), outputs[i]);
      });
}

} // namespace nn
