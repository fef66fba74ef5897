//===- Container.h - Module and parameter containers ------------*- C++ -*-===//
//
// PyTorch's containers: Sequential, ModuleList, ModuleDict, ParameterList and
// ParameterDict. Each registers what it holds, so the contents get dotted
// names ("blocks.0.fc.weight", "heads.classify.bias"), appear in
// state_dict() and are converted, cloned and printed with the model. A
// std::vector or std::map of modules or tensors registers nothing, as a
// Python list or dict doesn't.
//
// Module containers hold AnyModule handles; calling one (`blocks[i](x)`)
// goes through the module's holder, so traced ops are located at the
// module's path.
//
//===----------------------------------------------------------------------===//
#ifndef NN_MODULES_CONTAINER_H
#define NN_MODULES_CONTAINER_H

#include "nn/Frontend/ModuleHolder.h"

#include <array>
#include <functional>
#include <initializer_list>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace nn {

//===----------------------------------------------------------------------===//
// AnyModule
//===----------------------------------------------------------------------===//

namespace detail {
template <typename T, size_t> using Repeat = T;
/// Whether holder `H` can be called with N Tensors and return one.
template <typename H, typename Indices> struct TakesTensors;
template <typename H, size_t... I>
struct TakesTensors<H, std::index_sequence<I...>>
    : std::is_invocable_r<Tensor, const H &, Repeat<const Tensor &, I>...> {};
template <typename... Ts>
inline constexpr bool
    tensors_v = (std::is_convertible_v<const Ts &, const Tensor &> && ...);
} // namespace detail

/// Any module, type-erased (libtorch's AnyModule): the module, and how to
/// call its forward through its holder (hooks included) when that forward
/// takes one to kMaxArguments Tensors and returns one Tensor, as
/// TransformerEncoderLayer's forward(src, mask) does.
///   for (const nn::AnyModule &layer : *layers) x = layer(x, mask);
class AnyModule {
public:
  /// The most Tensor arguments a forward is called with through AnyModule.
  static constexpr size_t kMaxArguments = 4;

  template <typename C>
  AnyModule(ModuleHolder<C> holder) : module_(holder.ptr()) {
    if (!module_)
      throw Error("AnyModule: the module holder is empty");
    bind_calls(holder, std::make_index_sequence<kMaxArguments + 1>());
  }
  template <typename C>
  AnyModule(std::shared_ptr<C> module) : AnyModule(ModuleHolder<C>(module)) {}
  /// While Module::clone() runs, the copy refers to the cloned module.
  AnyModule(const AnyModule &other);
  AnyModule(AnyModule &&other) noexcept = default;
  AnyModule &operator=(const AnyModule &other) = default;
  AnyModule &operator=(AnyModule &&other) noexcept = default;

  const std::shared_ptr<Module> &ptr() const { return module_; }
  /// The module as a `T` (e.g. LinearImpl); nn::Error when it is not one.
  template <typename T> std::shared_ptr<T> ptr() const {
    if (auto typed = std::dynamic_pointer_cast<T>(module_))
      return typed;
    throw Error("AnyModule: the module is a " + module_->name() +
                ", not the type asked for");
  }
  Module *operator->() const { return module_.get(); }
  Module &operator*() const { return *module_; }

  /// Whether the module's forward takes and returns one Tensor.
  bool is_callable() const { return is_callable(1); }
  /// Whether it takes `arguments` Tensors and returns one.
  bool is_callable(size_t arguments) const {
    return arguments < calls_.size() && static_cast<bool>(calls_[arguments]);
  }
  /// Calls the module's forward through its holder; nn::Error naming the
  /// module when it takes no such arguments (reach other forwards with
  /// ptr<T>()).
  template <typename... Rest,
            typename = std::enable_if_t<detail::tensors_v<Rest...>>>
  Tensor forward(const Tensor &input, const Rest &...rest) const {
    return call({input, rest...});
  }
  template <typename... Rest,
            typename = std::enable_if_t<detail::tensors_v<Rest...>>>
  Tensor operator()(const Tensor &input, const Rest &...rest) const {
    return call({input, rest...});
  }
  /// The same with the arguments in a vector.
  Tensor call(const std::vector<Tensor> &inputs) const;

private:
  using Call = std::function<Tensor(const std::vector<Tensor> &)>;

  template <typename C, size_t... N>
  void bind_calls(const ModuleHolder<C> &holder, std::index_sequence<N...>) {
    (bind_call<N>(holder, std::make_index_sequence<N>()), ...);
  }
  template <size_t N, typename C, size_t... I>
  void bind_call(const ModuleHolder<C> &holder, std::index_sequence<I...>) {
    if constexpr (N > 0 &&
                  detail::TakesTensors<ModuleHolder<C>,
                                       std::index_sequence<I...>>::value)
      calls_[N] = [holder](const std::vector<Tensor> &in) -> Tensor {
        return holder(in[I]...);
      };
  }

  std::shared_ptr<Module> module_;
  /// calls_[n]: the forward of n Tensors, when there is one.
  std::array<Call, kMaxArguments + 1> calls_;
};

namespace detail {
/// True for non-empty argument packs of modules (holders or shared
/// pointers), so a container's variadic constructor never shadows its copy
/// constructor or the one a subclass names itself with.
template <typename... Args>
inline constexpr bool modules_v = sizeof...(Args) != 0 &&
                                  (std::is_constructible_v<AnyModule, Args> &&
                                   ...);

/// "torch.float32 of size 3x4" as ParameterList prints a parameter.
std::string parameter_summary(const Tensor &tensor, bool torch_typename);

/// The modules of Sequential and ModuleList in order, read by position.
/// Adding them stays with each container: registration is what names them.
class ModuleSequence {
public:
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  /// The i-th module; nn::Error when out of range.
  const AnyModule &operator[](size_t index) const;
  std::shared_ptr<Module> ptr(size_t index) const {
    return (*this)[index].ptr();
  }
  template <typename T> std::shared_ptr<T> ptr(size_t index) const {
    return (*this)[index].template ptr<T>();
  }
  std::vector<AnyModule>::const_iterator begin() const {
    return items_.begin();
  }
  std::vector<AnyModule>::const_iterator end() const { return items_.end(); }

protected:
  /// `container` names the container in errors ("Sequential").
  explicit ModuleSequence(std::string container)
      : container_(std::move(container)) {}

  std::vector<AnyModule> items_;

private:
  std::string container_;
};
} // namespace detail

//===----------------------------------------------------------------------===//
// Sequential
//===----------------------------------------------------------------------===//

/// Chains modules: each one's output is the next one's input. Children are
/// named "0", "1", … or by the names given.
/// See https://pytorch.org/docs/stable/generated/torch.nn.Sequential.html
///   Sequential seq(Linear(4, 8), ReLU(), Linear(8, 2));
///   Sequential named({{"fc", Linear(4, 8)}, {"act", ReLU()}});
///
/// A subclass is a Sequential under its own name, as torchvision's
/// Conv2dNormActivation is: it prints, clones and is called as one.
///   class ConvBNReLUImpl
///       : public nn::Cloneable<ConvBNReLUImpl, nn::SequentialImpl> {
///   public:
///     ConvBNReLUImpl(int64_t in, int64_t out) : Cloneable("ConvBNReLU") {
///       push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 3).bias(false)));
///       push_back(nn::BatchNorm2d(out));
///       push_back(nn::ReLU(true));
///     }
///   };
///   NN_MODULE(ConvBNReLU);
class SequentialImpl : public Cloneable<SequentialImpl>,
                       public detail::ModuleSequence {
public:
  SequentialImpl() : SequentialImpl(std::string("Sequential")) {}
  template <typename... Modules,
            typename = std::enable_if_t<detail::modules_v<Modules...>>>
  explicit SequentialImpl(Modules &&...modules) : SequentialImpl() {
    (push_back(AnyModule(std::forward<Modules>(modules))), ...);
  }
  SequentialImpl(
      std::initializer_list<std::pair<std::string, AnyModule>> named);

  /// Appends under the next position's name ("0", "1", …).
  void push_back(AnyModule module);
  /// Appends under `name`, which must be new.
  void push_back(std::string name, AnyModule module);

  /// The modules in order, each one's output the next one's input. The
  /// first is given all the arguments (libtorch's Sequential does the
  /// same: Sequential(layer_taking_x_and_mask, ReLU())->forward(x, mask)).
  Tensor forward(const Tensor &input) { return chain({input}); }
  template <typename... Rest,
            typename = std::enable_if_t<sizeof...(Rest) != 0 &&
                                        detail::tensors_v<Rest...>>>
  Tensor forward(const Tensor &input, const Rest &...rest) {
    return chain({input, rest...});
  }

protected:
  /// An empty Sequential printed and named in errors as `name`: what a
  /// subclass's `Cloneable("Name")` calls.
  explicit SequentialImpl(std::string name)
      : Cloneable(name), ModuleSequence(name) {}

private:
  Tensor chain(const std::vector<Tensor> &inputs);
};
class Sequential : public ModuleHolder<SequentialImpl> {
public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  using Impl = SequentialImpl;
  /// Sequential({{"fc", Linear(4, 8)}, {"act", ReLU()}})
  Sequential(std::initializer_list<std::pair<std::string, AnyModule>> named)
      : ModuleHolder(std::make_shared<SequentialImpl>(named)) {}
};

//===----------------------------------------------------------------------===//
// ModuleList
//===----------------------------------------------------------------------===//

/// Modules in a list, registered as "0", "1", …; it has no forward.
/// See https://pytorch.org/docs/stable/generated/torch.nn.ModuleList.html
///   ModuleList blocks(Block(16), Block(16));
///   for (const AnyModule &block : *blocks) x = block(x);
/// A subclass is a ModuleList under its own name, as Sequential's are.
class ModuleListImpl : public Cloneable<ModuleListImpl>,
                       public detail::ModuleSequence {
public:
  ModuleListImpl() : ModuleListImpl(std::string("ModuleList")) {}
  template <typename... Modules,
            typename = std::enable_if_t<detail::modules_v<Modules...>>>
  explicit ModuleListImpl(Modules &&...modules) : ModuleListImpl() {
    (push_back(AnyModule(std::forward<Modules>(modules))), ...);
  }

  void push_back(AnyModule module);
  /// Appends every module of `modules` (a ModuleList, a std::vector<Linear>,
  /// …).
  template <std::ranges::range Range> void extend(const Range &modules) {
    std::vector<AnyModule> items(std::ranges::begin(modules),
                                 std::ranges::end(modules));
    for (AnyModule &item : items)
      push_back(std::move(item));
  }
  void extend(const ModuleHolder<ModuleListImpl> &other) { extend(*other); }
  /// Inserts before position `index` (0 ≤ index ≤ size()); the modules after
  /// it move up one name, as PyTorch's ModuleList.insert renames them.
  void insert(size_t index, AnyModule module);

protected:
  /// An empty ModuleList named `name` (a subclass's `Cloneable("Name")`).
  explicit ModuleListImpl(std::string name)
      : Cloneable(name), ModuleSequence(name) {}
};
NN_MODULE(ModuleList);

//===----------------------------------------------------------------------===//
// ModuleDict
//===----------------------------------------------------------------------===//

/// Modules by name, in insertion order; it has no forward.
/// See https://pytorch.org/docs/stable/generated/torch.nn.ModuleDict.html
///   ModuleDict heads({{"classify", Linear(32, 10)}, {"regress", Linear(32,
///   1)}}); Tensor y = heads["classify"](h);
class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
public:
  using Item = std::pair<std::string, AnyModule>;

  ModuleDictImpl() : Cloneable("ModuleDict") {}
  ModuleDictImpl(std::initializer_list<Item> modules);

  /// Adds `module` under `key`; an existing key keeps its position and gets
  /// the new module, as `d[key] = module` in Python.
  void insert(std::string key, AnyModule module);
  /// insert() for every item, in order.
  void update(const std::vector<Item> &modules);
  bool contains(const std::string &key) const;
  /// The module under `key`; nn::Error naming the key when absent.
  const AnyModule &operator[](const std::string &key) const;
  std::shared_ptr<Module> ptr(const std::string &key) const {
    return (*this)[key].ptr();
  }
  template <typename T> std::shared_ptr<T> ptr(const std::string &key) const {
    return (*this)[key].template ptr<T>();
  }

  std::vector<std::string> keys() const;
  std::vector<AnyModule> values() const;
  const std::vector<Item> &items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  std::vector<Item>::const_iterator begin() const { return items_.begin(); }
  std::vector<Item>::const_iterator end() const { return items_.end(); }

private:
  std::vector<Item> items_;
};
class ModuleDict : public ModuleHolder<ModuleDictImpl> {
public:
  using ModuleHolder<ModuleDictImpl>::ModuleHolder;
  using Impl = ModuleDictImpl;
  ModuleDict(std::initializer_list<ModuleDictImpl::Item> modules)
      : ModuleHolder(std::make_shared<ModuleDictImpl>(modules)) {}
};

//===----------------------------------------------------------------------===//
// ParameterList
//===----------------------------------------------------------------------===//

/// Parameters in a list, registered as "0", "1", …
/// See https://pytorch.org/docs/stable/generated/torch.nn.ParameterList.html
///   ParameterList scales(Tensor::zeros({16}), Tensor::zeros({16}));
class ParameterListImpl : public Cloneable<ParameterListImpl> {
public:
  ParameterListImpl() : Cloneable("ParameterList") {}
  template <typename... Tensors,
            typename = std::enable_if_t<
                sizeof...(Tensors) != 0 &&
                (std::is_convertible_v<Tensors, Tensor> && ...)>>
  explicit ParameterListImpl(Tensors &&...parameters)
      : Cloneable("ParameterList") {
    (append(std::forward<Tensors>(parameters)), ...);
  }
  ParameterListImpl(const ParameterListImpl &other);

  /// Registers `parameter` (sharing its storage) under the next position.
  Tensor &append(Tensor parameter, bool requires_grad = true);
  void extend(const std::vector<Tensor> &parameters);
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  /// The registered tensor itself; nn::Error when out of range.
  Tensor &operator[](size_t index);
  const Tensor &operator[](size_t index) const;
  /// The parameters, in order (copies sharing storage and gradient slot).
  std::vector<Tensor> values() const;

  std::string extra_repr() const override;

private:
  std::vector<Tensor *> items_;
};
NN_MODULE(ParameterList);

//===----------------------------------------------------------------------===//
// ParameterDict
//===----------------------------------------------------------------------===//

/// Parameters by name, in insertion order.
/// See https://pytorch.org/docs/stable/generated/torch.nn.ParameterDict.html
///   ParameterDict offsets({{"classify", Tensor::zeros({10})}});
/// (PyTorch 1.13 sorts the keys of a plain dict; give it a list of pairs or
/// an OrderedDict to keep this order.)
class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
public:
  using Item = std::pair<std::string, Tensor>;

  ParameterDictImpl() : Cloneable("ParameterDict") {}
  ParameterDictImpl(std::initializer_list<Item> parameters);
  ParameterDictImpl(const ParameterDictImpl &other);

  /// Registers `parameter` (sharing its storage) under `key`; an existing
  /// key keeps its position.
  Tensor &insert(std::string key, Tensor parameter, bool requires_grad = true);
  bool contains(const std::string &key) const;
  /// The registered tensor itself; nn::Error naming the key when absent.
  Tensor &operator[](const std::string &key);
  const Tensor &operator[](const std::string &key) const;

  std::vector<std::string> keys() const;
  std::vector<Tensor> values() const;
  /// (key, parameter) in order; the tensors share storage and gradient slot
  /// with the registered ones.
  std::vector<Item> items() const;
  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }

  std::string extra_repr() const override;

private:
  std::vector<std::pair<std::string, Tensor *>> items_;
};
class ParameterDict : public ModuleHolder<ParameterDictImpl> {
public:
  using ModuleHolder<ParameterDictImpl>::ModuleHolder;
  using Impl = ParameterDictImpl;
  ParameterDict(std::initializer_list<ParameterDictImpl::Item> parameters)
      : ModuleHolder(std::make_shared<ParameterDictImpl>(parameters)) {}
};

} // namespace nn

#endif // NN_MODULES_CONTAINER_H
