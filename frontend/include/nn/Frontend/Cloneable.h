//===- Cloneable.h - Deep copies of modules ---------------------*- C++ -*-===//
//
// Derive a module from nn::Cloneable<Self> instead of nn::Module to give it
// clone(), as libtorch's torch::nn::Cloneable does:
//
//   class BlockImpl : public nn::Cloneable<BlockImpl> {
//   public:
//     BlockImpl() : Cloneable("Block") { fc = register_module("fc", Linear(4,
//     4)); } nn::Linear fc{nullptr};
//   };
//   Block copy = block.clone();          // a Block (ModuleHolder::clone)
//   auto any = block->clone();           // std::shared_ptr<Module>
//
// Unlike libtorch's, no reset() is needed: clone() runs the class's own
// (normally implicit) copy constructor while it maps every module of the tree
// to its copy, so member holders and member-backed parameters end up
// pointing into the copy, and ties inside the tree stay ties (see
// Module::clone). Members that are neither registered nor holders of
// registered modules are copied as the copy constructor copies them:
// a plain Tensor member shares its storage with the original's.
//
// A layer family with a shared base class names it as the second argument,
// so each leaf class is the one copied:
//
//   class Conv2dImpl : public nn::Cloneable<Conv2dImpl, ConvNdImpl<2>> {
//   public:
//     using Cloneable::Cloneable;
//   };
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_CLONEABLE_H
#define NN_FRONTEND_CLONEABLE_H

#include "nn/Frontend/Module.h"

#include <memory>
#include <type_traits>
#include <typeinfo>

namespace nn {

template <typename Derived, typename Base = Module>
class Cloneable : public Base {
  static_assert(std::is_base_of_v<Module, Base>);

public:
  using Base::Base;

  std::shared_ptr<Module> clone() const override {
    if constexpr (std::is_copy_constructible_v<Derived>) {
      return this->clone_as(typeid(Derived), sizeof(Derived), [this] {
        return std::static_pointer_cast<Module>(
            std::make_shared<Derived>(static_cast<const Derived &>(*this)));
      });
    } else {
      throw Error("clone() of " + this->name() +
                  ": its class has no copy "
                  "constructor (a member that can't be copied?)");
    }
  }
};

} // namespace nn

#endif // NN_FRONTEND_CLONEABLE_H
