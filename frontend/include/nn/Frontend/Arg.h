//===- Arg.h - Option struct fields -----------------------------*- C++ -*-===//
//
// NN_ARG(type, name) declares an option field with a chainable setter and a
// getter, as libtorch's TORCH_ARG: LinearOptions(784, 256).bias(false).
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_ARG_H
#define NN_FRONTEND_ARG_H

#include <utility>

#define NN_ARG(T, name)                                                        \
public:                                                                        \
  inline auto name(const T &new_##name)->decltype(*this) {                     \
    this->name##_ = new_##name;                                                \
    return *this;                                                              \
  }                                                                            \
  inline auto name(T &&new_##name)->decltype(*this) {                          \
    this->name##_ = std::move(new_##name);                                     \
    return *this;                                                              \
  }                                                                            \
  inline const T &name() const noexcept { return this->name##_; }              \
  inline T &name() noexcept { return this->name##_; }                          \
                                                                               \
private:                                                                       \
  T name##_ /* NOLINT */

#endif // NN_FRONTEND_ARG_H
