//===- OpsElementwiseTest.cpp - elementwise ops against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/elementwise.py.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

Outputs add(const Inputs &in) { return {in[0] + in[1]}; }

const OpCase kElementwiseCases[] = {
    {"elementwise", "add_1", add},
    {"elementwise", "add_17", add},
    {"elementwise", "add_broadcast_2x1x7_3x7", add},
    {"elementwise", "add_broadcast_scalar_3x5", add},
    {"elementwise", "add_i64", add},
};
INSTANTIATE_TEST_SUITE_P(Elementwise, OpGoldenTest,
                         ::testing::ValuesIn(kElementwiseCases), caseName);

} // namespace
} // namespace nn::testing
