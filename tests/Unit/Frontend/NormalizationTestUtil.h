//===- NormalizationTestUtil.h - Helpers of the norm-layer tests -*- C++ -*-===//
#ifndef NN_TESTS_UNIT_FRONTEND_NORMALIZATIONTESTUTIL_H
#define NN_TESTS_UNIT_FRONTEND_NORMALIZATIONTESTUTIL_H

#include "nn/nn.h"

#include <sstream>
#include <string>

namespace nn::testing {

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

template <typename Holder> std::string repr(const Holder &holder) {
  std::ostringstream os;
  os << *holder;
  return os.str();
}

} // namespace nn::testing

#endif // NN_TESTS_UNIT_FRONTEND_NORMALIZATIONTESTUTIL_H
