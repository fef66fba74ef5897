//===- OpsElementwiseTest.cpp - elementwise ops against PyTorch goldens ---===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/elementwise.py; the loops here follow the loops there.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

using Unary = std::function<Tensor(const Tensor &)>;
using Binary = std::function<Tensor(const Tensor &, const Tensor &)>;

std::vector<OpCase> elementwiseCases() {
  std::vector<OpCase> cases;
  auto add = [&](std::string name, std::function<Outputs(const Inputs &)> fn) {
    cases.push_back({"elementwise", std::move(name), std::move(fn)});
  };
  auto unary = [&](std::string name, Unary fn) {
    add(std::move(name), [fn](const Inputs &in) { return Outputs{fn(in[0])}; });
  };
  auto binary = [&](std::string name, Binary fn) {
    add(std::move(name),
        [fn](const Inputs &in) { return Outputs{fn(in[0], in[1])}; });
  };

  Binary plus = [](const Tensor &a, const Tensor &b) { return a + b; };
  for (const char *name : {"add_1", "add_17", "add_broadcast_2x1x7_3x7",
                           "add_broadcast_scalar_3x5", "add_i64"})
    binary(name, plus);

  const std::pair<const char *, Binary> binaries[] = {
      {"sub", [](const Tensor &a, const Tensor &b) { return a - b; }},
      {"mul", [](const Tensor &a, const Tensor &b) { return a * b; }},
      {"div", [](const Tensor &a, const Tensor &b) { return a / b; }},
      {"maximum", F::maximum},
      {"minimum", F::minimum},
  };
  for (const auto &[name, fn] : binaries)
    for (const char *shapes :
         {"1_1", "17_17", "3x7_7", "2x1x5_3x1", "4x3_scalar"})
      binary(std::string(name) + "_" + shapes, fn);
  binary("pow_positive_base",
         [](const Tensor &a, const Tensor &b) { return F::pow(a, b); });
  binary("maximum_nan", F::maximum);
  binary("sub_i64", [](const Tensor &a, const Tensor &b) { return a - b; });
  binary("mul_i64", [](const Tensor &a, const Tensor &b) { return a * b; });

  unary("add_scalar", [](const Tensor &x) { return x + 2.5; });
  unary("sub_scalar", [](const Tensor &x) { return x - 0.75; });
  unary("rsub_scalar", [](const Tensor &x) { return 1.5 - x; });
  unary("mul_scalar", [](const Tensor &x) { return x * -3.0; });
  unary("div_scalar", [](const Tensor &x) { return x / 7.0; });
  unary("pow_scalar", [](const Tensor &x) { return F::pow(x, 2.0); });

  for (const auto &[name, fn] : {std::pair<const char *, Unary>{"neg", F::neg},
                                 {"abs", F::abs},
                                 {"exp", F::exp}})
    unary(std::string(name) + "_3x17", fn);
  for (const auto &[name, fn] : {std::pair<const char *, Unary>{"log", F::log},
                                 {"sqrt", F::sqrt},
                                 {"rsqrt", F::rsqrt}}) {
    unary(std::string(name) + "_3x17", fn);
    unary(std::string(name) + "_edges", fn);
  }

  using TensorTensor = Tensor (*)(const Tensor &, const Tensor &);
  const std::pair<const char *, Binary> comparisons[] = {
      {"eq", F::eq},
      {"ne", F::ne},
      {"lt", static_cast<TensorTensor>(F::lt)},
      {"le", F::le},
      {"gt", static_cast<TensorTensor>(F::gt)},
      {"ge", F::ge}};
  for (const auto &[name, fn] : comparisons) {
    binary(std::string(name) + "_broadcast_nan", fn);
    binary(std::string(name) + "_i64", fn);
  }
  unary("gt_scalar", [](const Tensor &x) { return F::gt(x, 0.5); });
  add("where_broadcast",
      [](const Inputs &in) { return Outputs{F::where(in[0], in[1], in[2])}; });
  add("where_scalar_branch",
      [](const Inputs &in) { return Outputs{F::where(in[0], in[1], in[2])}; });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Elementwise, OpGoldenTest,
                         ::testing::ValuesIn(elementwiseCases()), caseName);

} // namespace

std::vector<OpCase> elementwiseOpCases() { return elementwiseCases(); }

} // namespace nn::testing
