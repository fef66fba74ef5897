//===- HookHandle.h - Hook lists and their removable handles ----*- C++ -*-===//
//
// Modules (forward and backward hooks) and tensors (gradient hooks) keep
// their hooks in a HookList: ordered entries with ids, and a version every
// add and remove bumps (what a compiled model checks to know it must
// recompile). Registering returns PyTorch's RemovableHandle, which holds the
// list weakly, so a handle outliving its module or tensor is harmless.
//
//   nn::RemovableHandle handle = model->register_forward_hook(...);
//   handle.remove();                  // or hold an nn::ScopedHook (RAII)
//
//===----------------------------------------------------------------------===//
#ifndef NN_RUNTIME_HOOKHANDLE_H
#define NN_RUNTIME_HOOKHANDLE_H

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace nn {
namespace detail {

/// What a handle removes from.
class HookListBase {
public:
  virtual ~HookListBase() = default;
  /// Removes hook `id`; false when it is not there.
  virtual bool erase(uint64_t id) = 0;
  virtual bool contains(uint64_t id) const = 0;
};

/// Hooks of type `Entry` (a struct with a `uint64_t id` member), in
/// registration order.
template <typename Entry> class HookList : public HookListBase {
public:
  /// Appends `entry` under a fresh id, which it returns.
  uint64_t add(Entry entry) {
    entry.id = next_id_++;
    entries_.push_back(std::move(entry));
    ++version_;
    return entries_.back().id;
  }
  bool erase(uint64_t id) override {
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry &e) { return e.id == id; });
    if (it == entries_.end())
      return false;
    entries_.erase(it);
    ++version_;
    return true;
  }
  bool contains(uint64_t id) const override {
    return std::any_of(entries_.begin(), entries_.end(),
                       [&](const Entry &e) { return e.id == id; });
  }
  const std::vector<Entry> &entries() const { return entries_; }
  /// Changes with every add and remove.
  uint64_t version() const { return version_; }

private:
  std::vector<Entry> entries_;
  uint64_t next_id_ = 0;
  uint64_t version_ = 0;
};

} // namespace detail

/// PyTorch's RemovableHandle: remove() unregisters the hook (once; later
/// calls and calls after the owner is gone do nothing). Copies refer to the
/// same hook. Destroying a handle does not remove the hook; hold a
/// ScopedHook for that. A default-constructed handle refers to nothing.
class RemovableHandle {
public:
  RemovableHandle() = default;
  RemovableHandle(std::weak_ptr<detail::HookListBase> list, uint64_t id)
      : list_(std::move(list)), id_(id) {}

  void remove() {
    if (auto list = list_.lock())
      list->erase(id_);
    list_.reset();
  }
  /// Whether the hook is still registered.
  bool active() const {
    auto list = list_.lock();
    return list && list->contains(id_);
  }

private:
  std::weak_ptr<detail::HookListBase> list_;
  uint64_t id_ = 0;
};

/// Removes its hook when destroyed:
///   nn::ScopedHook hook = model->register_forward_hook(...);
class ScopedHook {
public:
  ScopedHook() = default;
  ScopedHook(RemovableHandle handle) : handle_(std::move(handle)) {}
  ScopedHook(ScopedHook &&other) noexcept
      : handle_(std::exchange(other.handle_, {})) {}
  ScopedHook &operator=(ScopedHook &&other) noexcept {
    if (this != &other) {
      handle_.remove();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  ScopedHook(const ScopedHook &) = delete;
  ScopedHook &operator=(const ScopedHook &) = delete;
  ~ScopedHook() { handle_.remove(); }

  void remove() { handle_.remove(); }
  /// Keeps the hook registered past this object's life.
  RemovableHandle release() { return std::exchange(handle_, {}); }

private:
  RemovableHandle handle_;
};

} // namespace nn

#endif // NN_RUNTIME_HOOKHANDLE_H
