//===- OpsConvolutionTest.cpp - convolution ops against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/convolution.py.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

// const OpCase kConvolutionCases[] = {...};
// INSTANTIATE_TEST_SUITE_P(Convolution, OpGoldenTest, ::testing::ValuesIn(kConvolutionCases),
//                          caseName);

} // namespace
} // namespace nn::testing
