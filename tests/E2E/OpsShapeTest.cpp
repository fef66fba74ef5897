//===- OpsShapeTest.cpp - shape ops against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/shape.py.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

// const OpCase kShapeCases[] = {...};
// INSTANTIATE_TEST_SUITE_P(Shape, OpGoldenTest, ::testing::ValuesIn(kShapeCases),
//                          caseName);

} // namespace
} // namespace nn::testing
