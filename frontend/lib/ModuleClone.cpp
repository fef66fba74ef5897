//===- ModuleClone.cpp - Deep copies of module trees ----------------------===//
//
// Module::clone() as Cloneable<Derived> drives it: the derived class's
// (usually implicit) copy constructor copies the object, and while it runs
// a clone state on this thread maps each module of the tree to its copy.
// Module's copy constructor clones the children first (each module once),
// and re-points member-backed slots at the copy's members by their offset in
// the object; ModuleHolder and AnyModule copies (the holders among the
// derived class's members, copied right after) look their module up in the
// state and point at its copy. Once the object exists, its slots get their
// own storage, one per original storage, so ties inside the tree survive.
//
// The clone state is the frontend's second scoped, thread-local context
// (the tracer's is the first): it exists only while clone() runs.
//
//===----------------------------------------------------------------------===//

#include "nn/Frontend/Module.h"

#include <cstdint>
#include <unordered_map>

namespace nn {
namespace {

struct CloneState {
  /// The object whose copy constructor is running: its most-derived
  /// address and size, and its Module part.
  struct Frame {
    const void *begin;
    size_t size;
    const Module *original;
  };
  std::vector<Frame> frames;
  std::unordered_map<const Module *, std::shared_ptr<Module>> modules;
  std::unordered_map<const void *, Tensor> tensors; // by original storage

  /// The copy of `tensor`: new storage (one per original storage), with
  /// requires_grad and gradient copied. Symbolic tensors stay as they are.
  Tensor tensorCopy(const Tensor &tensor) {
    if (!tensor.storage())
      return tensor;
    auto [it, first] = tensors.try_emplace(tensor.storage().get());
    if (first) {
      Tensor copy = tensor.clone();
      copy.set_requires_grad(tensor.requires_grad());
      if (tensor.grad().defined())
        copy.set_grad(tensor.grad().clone());
      it->second = std::move(copy);
    }
    return it->second;
  }

  /// The copy of `module`, made once.
  std::shared_ptr<Module> moduleCopy(const std::shared_ptr<Module> &module) {
    auto it = modules.find(module.get());
    return it != modules.end() ? it->second : module->clone();
  }
};

thread_local CloneState *activeClone = nullptr;

/// Makes `state` the active clone state while alive.
class ActiveClone {
public:
  explicit ActiveClone(CloneState *state) : previous_(activeClone) {
    activeClone = state;
  }
  ~ActiveClone() { activeClone = previous_; }
  ActiveClone(const ActiveClone &) = delete;
  ActiveClone &operator=(const ActiveClone &) = delete;

private:
  CloneState *previous_;
};

} // namespace

namespace detail {
std::shared_ptr<Module> cloned_counterpart(const Module *original) {
  if (!activeClone || !original)
    return nullptr;
  auto it = activeClone->modules.find(original);
  return it == activeClone->modules.end() ? nullptr : it->second;
}
} // namespace detail

Module::Module(const Module &other)
    : std::enable_shared_from_this<Module>(), name_(other.name_),
      training_(other.training_),
      hooks_(other.hooks_
                 ? std::make_shared<detail::HookRegistry>(*other.hooks_)
                 : nullptr) {
  CloneState *state = activeClone;
  if (!state || state->frames.empty() ||
      state->frames.back().original != &other)
    throw Error(other.name_ +
                ": modules are copied only by clone(), which "
                "copies the whole tree; copy-constructing one can't");
  CloneState::Frame frame = state->frames.back();
  auto begin = reinterpret_cast<std::uintptr_t>(frame.begin);
  auto copySlots = [&](const std::vector<TensorSlot> &from,
                       std::vector<TensorSlot> &to, const char *kind) {
    for (const TensorSlot &slot : from) {
      TensorSlot copy;
      copy.name = slot.name;
      copy.persistent = slot.persistent;
      if (slot.owned) {
        // Shares the original's storage until clone_as gives it its own.
        copy.owned = std::make_unique<Tensor>(*slot.owned);
        copy.tensor = copy.owned.get();
      } else if (slot.tensor) {
        // A member: the same offset in the copy, which has the same type.
        auto address = reinterpret_cast<std::uintptr_t>(slot.tensor);
        if (address < begin || address - begin + sizeof(Tensor) > frame.size)
          throw Error(name_ + ": clone() can't copy the " + kind + " \"" +
                      slot.name +
                      "\": it is registered from a Tensor that "
                      "is not a member of the module");
        auto offset = static_cast<std::intptr_t>(
            address - reinterpret_cast<std::uintptr_t>(&other));
        copy.tensor = reinterpret_cast<Tensor *>(
            reinterpret_cast<std::intptr_t>(this) + offset);
      }
      to.push_back(std::move(copy));
    }
  };
  copySlots(other.parameters_, parameters_, "parameter");
  copySlots(other.buffers_, buffers_, "buffer");
  for (const auto &[name, child] : other.children_)
    children_.emplace_back(name, state->moduleCopy(child));
}

std::shared_ptr<Module>
Module::clone_as(const std::type_info &type, size_t size,
                 const std::function<std::shared_ptr<Module>()> &copy) const {
  if (typeid(*this) != type)
    throw Error("clone() of " + name_ +
                ": its class derives from a "
                "Cloneable of one of its bases, which would copy only that "
                "base; derive the class itself from nn::Cloneable<Class>");
  CloneState local;
  ActiveClone active(activeClone ? activeClone : &local);
  if (auto done = detail::cloned_counterpart(this))
    return done;
  activeClone->frames.push_back({dynamic_cast<const void *>(this), size, this});
  std::shared_ptr<Module> result;
  try {
    result = copy();
  } catch (...) {
    activeClone->frames.pop_back();
    throw;
  }
  activeClone->frames.pop_back();
  // The copy's slots still hold the original's tensors (its members were
  // copied as plain Tensors): give each storage its one copy.
  for (Tensor *slot : result->own_tensor_slots())
    *slot = activeClone->tensorCopy(*slot);
  activeClone->modules.emplace(this, result);
  return result;
}

} // namespace nn
