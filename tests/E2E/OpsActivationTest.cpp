//===- OpsActivationTest.cpp - activation ops against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/activation.py.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

Outputs relu(const Inputs &in) { return {F::relu(in[0])}; }

const OpCase kActivationCases[] = {
    {"activation", "relu_1", relu},
    {"activation", "relu_3x17", relu},
};
INSTANTIATE_TEST_SUITE_P(Activation, OpGoldenTest,
                         ::testing::ValuesIn(kActivationCases), caseName);

} // namespace
} // namespace nn::testing
