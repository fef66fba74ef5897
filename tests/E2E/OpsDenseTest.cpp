//===- OpsDenseTest.cpp - linear, matmul, addmm against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in tests/reference/ops/dense.py.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

std::vector<OpCase> denseCases() {
  std::vector<OpCase> cases;
  auto add = [&](std::string name, std::function<Outputs(const Inputs &)> fn) {
    cases.push_back({"dense", std::move(name), std::move(fn)});
  };
  for (const char *shapes :
       {"3x4_4x5", "1x7_7x1", "2x17_17x3", "2x3x4_2x4x5", "5x2x3_3x4",
        "3x4_2x4x5", "2x1x3x4_5x4x6", "1x3x2x7_4x1x7x3"})
    add(std::string("matmul_") + shapes,
        [](const Inputs &in) { return Outputs{F::matmul(in[0], in[1])}; });
  add("linear_2x5x7",
      [](const Inputs &in) { return Outputs{F::linear(in[0], in[1], in[2])}; });
  add("linear_nobias_7",
      [](const Inputs &in) { return Outputs{F::linear(in[0], in[1])}; });
  auto addmm = [](const Inputs &in) {
    return Outputs{F::addmm(in[0], in[1], in[2])};
  };
  add("addmm", addmm);
  add("addmm_row_input", addmm);
  add("addmm_beta_alpha", [](const Inputs &in) {
    return Outputs{F::addmm(in[0], in[1], in[2], /*beta=*/0.5, /*alpha=*/2.0)};
  });
  add("addmm_beta0", [](const Inputs &in) {
    return Outputs{F::addmm(in[0], in[1], in[2], /*beta=*/0.0)};
  });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Dense, OpGoldenTest, ::testing::ValuesIn(denseCases()),
                         caseName);

TEST(DenseTraceTest, AddmmNeeds2DMatrices) {
  Module root("Root");
  try {
    trace(root, {TensorSpec({3}), TensorSpec({2, 3, 4}), TensorSpec({4, 3})},
          [](const Inputs &in) {
            return Outputs{F::addmm(in[0], in[1], in[2])};
          });
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(
        e.what(),
        "<root>: addmm: mat1 and mat2 must be 2-D (mat1 2x3x4, mat2 4x3)");
  }
}

} // namespace

std::vector<OpCase> denseOpCases() { return denseCases(); }

} // namespace nn::testing
