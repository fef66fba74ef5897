//===- Repr.h - Python spellings for extra_repr -----------------*- C++ -*-===//
//
// Layers print their options as PyTorch does, which means Python's repr of
// the values: floats as the shortest round-trip form with ".0" when
// integral, booleans as True/False, tuples as "(3, 3)".
//
//===----------------------------------------------------------------------===//
#ifndef NN_FRONTEND_REPR_H
#define NN_FRONTEND_REPR_H

#include <cstdint>
#include <string>
#include <vector>

namespace nn {

/// Python's repr of a float: 0.01, -1.0, 1e-05, inf, nan.
std::string py_repr(double value);
/// "True" / "False".
std::string py_repr(bool value);
/// Python's repr of a tuple of ints: "(3, 3)", "(1,)".
std::string py_repr(const std::vector<int64_t> &values);

} // namespace nn

#endif // NN_FRONTEND_REPR_H
