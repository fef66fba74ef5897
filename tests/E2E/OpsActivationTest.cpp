//===- OpsActivationTest.cpp - activation ops against PyTorch goldens -----===//
//
// Each case mirrors the one of the same name in
// tests/reference/ops/activation.py; the loops here follow the loops there.
//
//===----------------------------------------------------------------------===//

#include "OpGolden.h"

namespace nn::testing {
namespace {

using Fn = std::function<Tensor(const Tensor &)>;

std::vector<OpCase> activationCases() {
  std::vector<OpCase> cases;
  auto add = [&](std::string name, Fn fn) {
    cases.push_back({"activation", std::move(name),
                     [fn](const Inputs &in) { return Outputs{fn(in[0])}; }});
  };
  add("relu_1", [](const Tensor &x) { return F::relu(x); });
  add("relu_3x17", [](const Tensor &x) { return F::relu(x); });

  const std::pair<const char *, Fn> pointwise[] = {
      {"sigmoid", [](const Tensor &x) { return F::sigmoid(x); }},
      {"tanh", [](const Tensor &x) { return F::tanh(x); }},
      {"silu", [](const Tensor &x) { return F::silu(x); }},
      {"gelu", [](const Tensor &x) { return F::gelu(x); }},
      {"gelu_tanh",
       [](const Tensor &x) {
         return F::gelu(x, F::GELUFuncOptions().approximate("tanh"));
       }},
      {"leaky_relu", [](const Tensor &x) { return F::leaky_relu(x); }},
      {"leaky_relu_02", [](const Tensor &x) { return F::leaky_relu(x, 0.2); }},
      {"hardtanh", [](const Tensor &x) { return F::hardtanh(x); }},
      {"relu6", [](const Tensor &x) { return F::relu6(x); }},
      {"clamp_min",
       [](const Tensor &x) { return F::clamp(x, -0.5, std::nullopt); }},
      {"clamp_max",
       [](const Tensor &x) { return F::clamp(x, std::nullopt, 0.25); }},
  };
  for (const auto &[name, fn] : pointwise) {
    for (const char *shape : {"1", "7", "3x17", "2x3x5"})
      add(std::string(name) + "_" + shape, fn);
    add(std::string(name) + "_specials", fn);
  }

  const std::pair<const char *, Tensor (*)(const Tensor &, int64_t)>
      normalizers[] = {{"softmax", F::softmax},
                       {"log_softmax", F::log_softmax}};
  for (const auto &[name, fn] : normalizers) {
    const std::pair<const char *, int64_t> shapes[] = {
        {"7", 0}, {"3x17", 1}, {"3x17", 0}, {"2x3x5", -1}, {"2x3x5", 1}};
    for (const auto &[shape, dim] : shapes)
      add(std::string(name) + "_" + shape + "_dim" +
              (dim < 0 ? "m" + std::to_string(-dim) : std::to_string(dim)),
          [fn, dim](const Tensor &x) { return fn(x, dim); });
    add(std::string(name) + "_large",
        [fn](const Tensor &x) { return fn(x, -1); });
  }

  // Added after the cases above in activation.py, as here.
  const std::pair<const char *, Fn> later[] = {
      {"hardsigmoid", [](const Tensor &x) { return F::hardsigmoid(x); }},
      {"hardswish", [](const Tensor &x) { return F::hardswish(x); }},
      {"elu", [](const Tensor &x) { return F::elu(x); }},
      {"elu_05", [](const Tensor &x) { return F::elu(x, 0.5); }},
  };
  for (const auto &[name, fn] : later) {
    for (const char *shape : {"1", "7", "3x17", "2x3x5"})
      add(std::string(name) + "_" + shape, fn);
    add(std::string(name) + "_specials", fn);
  }
  // prelu(x, weight): one slope per channel or one for all.
  for (const char *name :
       {"2x3x5", "2x3x4x4", "2x3x4x4_shared", "7", "specials"})
    cases.push_back(
        {"activation", std::string("prelu_") + name,
         [](const Inputs &in) { return Outputs{F::prelu(in[0], in[1])}; }});
  // More activation layers' functions (added after prelu in activation.py).
  const std::pair<const char *, Fn> more[] = {
      {"selu", [](const Tensor &x) { return F::selu(x); }},
      {"celu_05", [](const Tensor &x) { return F::celu(x, 0.5); }},
      {"softplus", [](const Tensor &x) { return F::softplus(x); }},
      {"softplus_b2_t5",
       [](const Tensor &x) { return F::softplus(x, 2.0, 5.0); }},
      {"mish", [](const Tensor &x) { return F::mish(x); }},
      {"logsigmoid", [](const Tensor &x) { return F::logsigmoid(x); }},
      {"softsign", [](const Tensor &x) { return F::softsign(x); }},
      {"tanhshrink", [](const Tensor &x) { return F::tanhshrink(x); }},
      {"hardshrink", [](const Tensor &x) { return F::hardshrink(x); }},
      {"softshrink_15", [](const Tensor &x) { return F::softshrink(x, 1.5); }},
      {"threshold", [](const Tensor &x) { return F::threshold(x, 0.1, 20.0); }},
  };
  for (const auto &[name, fn] : more) {
    for (const char *shape : {"1", "7", "3x17", "2x3x5"})
      add(std::string(name) + "_" + shape, fn);
    add(std::string(name) + "_specials", fn);
  }
  add("glu_3x4", [](const Tensor &x) { return F::glu(x); });
  add("glu_2x6x5_dim1", [](const Tensor &x) { return F::glu(x, 1); });
  add("softmin_3x17_dim1", [](const Tensor &x) { return F::softmin(x, 1); });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Activation, OpGoldenTest,
                         ::testing::ValuesIn(activationCases()), caseName);

} // namespace

std::vector<OpCase> activationOpCases() { return activationCases(); }

} // namespace nn::testing
