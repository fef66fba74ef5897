//===- TensorTestUtil.h - Reading tensors in tests --------------*- C++ -*-===//
#ifndef NN_TESTS_UNIT_RUNTIME_TENSORTESTUTIL_H
#define NN_TESTS_UNIT_RUNTIME_TENSORTESTUTIL_H

#include "nn/Runtime/Tensor.h"

#include <vector>

namespace nn::test {

/// Every element of `t` as a double, flat, from any device.
inline std::vector<double> valuesOf(const Tensor &t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(t.item_as_double(i));
  return out;
}

} // namespace nn::test

#endif // NN_TESTS_UNIT_RUNTIME_TENSORTESTUTIL_H
