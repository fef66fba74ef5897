//===- Container.h - Module containers --------------------------*- C++ -*-===//
#ifndef NN_MODULES_CONTAINER_H
#define NN_MODULES_CONTAINER_H

#include "nn/Frontend/ModuleHolder.h"

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace nn {

/// Any module with a single-tensor forward, type-erased (libtorch's
/// AnyModule): the module plus how to call it through its holder.
class AnyModule {
public:
  template <typename C>
  AnyModule(ModuleHolder<C> holder)
      : module_(holder.ptr()),
        call_([holder](const Tensor &x) { return holder(x); }) {}
  template <typename C>
  AnyModule(std::shared_ptr<C> module) : AnyModule(ModuleHolder<C>(module)) {}

  const std::shared_ptr<Module> &ptr() const { return module_; }
  Tensor forward(const Tensor &x) const { return call_(x); }

private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor &)> call_;
};

/// Chains modules: each one's output is the next one's input. Children are
/// named "0", "1", … or by the names given.
/// See https://pytorch.org/docs/stable/generated/torch.nn.Sequential.html
///   Sequential seq(Linear(4, 8), ReLU(), Linear(8, 2));
///   Sequential named({{"fc", Linear(4, 8)}, {"act", ReLU()}});
class SequentialImpl : public Module {
public:
  SequentialImpl() : Module("Sequential") {}
  template <typename... Modules>
  explicit SequentialImpl(Modules &&...modules) : Module("Sequential") {
    (push_back(AnyModule(std::forward<Modules>(modules))), ...);
  }
  SequentialImpl(std::initializer_list<std::pair<std::string, AnyModule>> named);

  void push_back(AnyModule module);
  void push_back(std::string name, AnyModule module);
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  /// The i-th module; throws nn::Error when out of range.
  std::shared_ptr<Module> operator[](size_t index) const;
  std::shared_ptr<Module> ptr(size_t index) const { return (*this)[index]; }

  Tensor forward(const Tensor &input);

private:
  std::vector<AnyModule> items_;
};
class Sequential : public ModuleHolder<SequentialImpl> {
public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  /// Sequential({{"fc", Linear(4, 8)}, {"act", ReLU()}})
  Sequential(std::initializer_list<std::pair<std::string, AnyModule>> named)
      : ModuleHolder(std::make_shared<SequentialImpl>(named)) {}
};

} // namespace nn

#endif // NN_MODULES_CONTAINER_H
