//===- OpsNormalizationTest.cpp - normalization ops against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/normalization.py.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

// const OpCase kNormalizationCases[] = {...};
// INSTANTIATE_TEST_SUITE_P(Normalization, OpGoldenTest, ::testing::ValuesIn(kNormalizationCases),
//                          caseName);

} // namespace
} // namespace nn::testing
