//===- OpGolden.h - Per-op tests against PyTorch goldens --------*- C++ -*-===//
//
// A case names a golden file (tests/reference/goldens/ops/<family>/<name>
// .safetensors, made by tests/reference/generate_op_goldens.py) and the C++
// computation that mirrors the PyTorch one. The test traces the computation
// with every golden input as a function input, JIT-compiles it, runs it on
// the golden inputs and compares every output with torch.testing's float32
// tolerance unless the case says otherwise (with a reason).
//
//   const nn::testing::OpCase kCases[] = {
//       {"activation", "gelu_17", [](const Inputs &in) { return
//       Outputs{F::gelu(in[0])}; }},
//   };
//   INSTANTIATE_TEST_SUITE_P(Activation, OpGoldenTest,
//                            ::testing::ValuesIn(kCases), caseName);
//
//===----------------------------------------------------------------------===//
#ifndef NN_TESTS_E2E_OPGOLDEN_H
#define NN_TESTS_E2E_OPGOLDEN_H

#include "nn/nn.h"

#include "gtest/gtest.h"

#include <functional>
#include <string>
#include <vector>

namespace nn::testing {

using Inputs = std::vector<Tensor>;
using Outputs = std::vector<Tensor>;

/// |actual - expected| <= atol + rtol * |expected|, elementwise.
struct Tolerance {
  double rtol = 1.3e-6;
  double atol = 1e-5;
};

struct OpCase {
  std::string family;
  std::string name;
  std::function<Outputs(const Inputs &)> fn;
  Tolerance tolerance = {};
};

/// gtest prints a case by its name.
inline void PrintTo(const OpCase &c, std::ostream *os) {
  *os << c.family << "/" << c.name;
}

/// Test-name generator for INSTANTIATE_TEST_SUITE_P.
std::string caseName(const ::testing::TestParamInfo<OpCase> &info);

/// A case's golden inputs and outputs: input.N and output.N of its file
/// (tests/reference/goldens/ops/<family>/<name>.safetensors). Throws
/// nn::Error when the file does not load.
struct Golden {
  Inputs inputs;
  Outputs outputs;
};
Golden loadGolden(const OpCase &c);

/// Traces `c`, compiles it with `options`, runs it on the golden's inputs
/// and compares with its outputs (what OpGoldenTest does with the default
/// options).
void expectMatchesGolden(const OpCase &c, const CompileOptions &options);

/// Expects `actual` to match `expected` (shape, dtype, values) within
/// `tolerance`; `what` names it in failures.
void expectClose(const Tensor &actual, const Tensor &expected,
                 const Tolerance &tolerance, const std::string &what);
/// Expects `actual` to equal `expected` bit for bit (shape, dtype, bytes).
void expectSameBits(const Tensor &actual, const Tensor &expected,
                    const std::string &what);

/// The message of the nn::Error that tracing `fn` on `specs` (in a root
/// module) throws, or "" when tracing succeeds.
std::string traceError(const std::vector<TensorSpec> &specs,
                       const std::function<Outputs(const Inputs &)> &fn);

class OpGoldenTest : public ::testing::TestWithParam<OpCase> {};

/// The cases of a family, defined beside its tests (Ops<Family>Test.cpp),
/// for the tests that reuse them (GradTest.cpp).
std::vector<OpCase> activationOpCases();
std::vector<OpCase> elementwiseOpCases();
std::vector<OpCase> denseOpCases();
std::vector<OpCase> lossOpCases();
std::vector<OpCase> normalizationOpCases();
std::vector<OpCase> shapeOpCases();
std::vector<OpCase> attentionOpCases();
std::vector<OpCase> convolutionOpCases();
std::vector<OpCase> fusedOpCases();
std::vector<OpCase> halfOpCases();

} // namespace nn::testing

#endif // NN_TESTS_E2E_OPGOLDEN_H
