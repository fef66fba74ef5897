//===- FrontendTestUtil.h - Helpers shared by the frontend tests -*- C++
//-*-===//
#ifndef NN_TESTS_UNIT_FRONTEND_FRONTENDTESTUTIL_H
#define NN_TESTS_UNIT_FRONTEND_FRONTENDTESTUTIL_H

#include "nn/nn.h"

#include <sstream>
#include <string>
#include <vector>

namespace nn::testing {

/// The names of (name, value) pairs, in order: named_parameters(),
/// named_children(), items(), ...
std::vector<std::string> names(const auto &pairs) {
  std::vector<std::string> out;
  for (const auto &[name, value] : pairs)
    out.push_back(name);
  return out;
}

/// What `std::cout << value` prints for a module or a module holder: the
/// PyTorch-style repr.
std::string repr(const auto &value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

/// "name:shape:dtype;" per state_dict entry, in order ("scalar" for a 0-d
/// shape), to compare with PyTorch's state_dict().
inline std::string stateSummary(const Module &module) {
  std::string out;
  StateDict state = module.state_dict();
  for (const auto &[name, tensor] : state.items())
    out += name + ":" + shape_str(tensor.shape()) + ":" +
           std::string(dtype_name(tensor.dtype())) + ";";
  return out;
}

} // namespace nn::testing

#endif // NN_TESTS_UNIT_FRONTEND_FRONTENDTESTUTIL_H
