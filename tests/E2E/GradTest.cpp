//===- GradTest.cpp - nn-autodiff against PyTorch and finite differences --===//
//
// Every op case of the differentiated families (OpGolden.h) that has a
// gradient golden (tests/reference/generate_grad_goldens.py: PyTorch's
// autograd of sum(out · R) for a seeded R) is traced as that loss,
// differentiated with respect to its inputs by nn-autodiff, compiled and
// compared with PyTorch in float32; and the same case in float64 is checked
// against central finite differences, as torch.autograd.gradcheck does
// (eps 1e-6, atol 1e-5, rtol 1e-3). Inputs the golden does not
// differentiate (integer targets, class weights) are constants to both.
//
//===----------------------------------------------------------------------===//

#include "E2ETestUtil.h"
#include "OpGolden.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

#include <cmath>
#include <filesystem>

namespace nn::testing {
namespace {

std::string goldenPath(const OpCase &c) {
  return std::string(NN_SOURCE_DIR) + "/tests/reference/goldens/grads/" +
         c.family + "/" + c.name + ".safetensors";
}

/// The cases of the differentiated families that have a gradient golden
/// (the generator says which are left out, and why).
std::vector<OpCase> gradCases() {
  std::vector<OpCase> cases;
  for (auto family : {activationOpCases, elementwiseOpCases, denseOpCases,
                      lossOpCases, normalizationOpCases, shapeOpCases,
                      attentionOpCases, convolutionOpCases})
    for (OpCase &c : family())
      if (std::filesystem::exists(goldenPath(c)))
        cases.push_back(std::move(c));
  return cases;
}

class GradTest : public ::testing::TestWithParam<OpCase> {
protected:
  void SetUp() override {
    auto golden = load_safetensors(goldenPath(GetParam()));
    ASSERT_TRUE(golden.ok()) << golden.status();
    tensors = golden->tensors;
    for (int i = 0;; ++i) {
      const Tensor *t = tensors.find("input." + std::to_string(i));
      if (!t)
        break;
      inputs.push_back(*t);
    }
    inputs.push_back(*tensors.find("weight.0"));
    for (absl::string_view index : absl::StrSplit(
             golden->metadata.at("differentiable"), ',', absl::SkipEmpty())) {
      size_t i;
      ASSERT_TRUE(absl::SimpleAtoi(index, &i)) << index;
      differentiable.push_back(i);
    }
  }

  /// sum(fn(x)[0] · weight) over `at` (the case's inputs, then the weight)
  /// compiled; with `gradients`, followed by those of the differentiated
  /// inputs ("grad.input.i"), the others being constants to the trace.
  std::shared_ptr<Artifact> compileLoss(const Inputs &at, bool gradients) {
    std::vector<TensorSpec> specs;
    for (size_t i : differentiable)
      specs.emplace_back(at[i].shape(), at[i].dtype(),
                         "input." + std::to_string(i));
    auto fn = [&, case_fn = GetParam().fn](const Inputs &symbolic) {
      Inputs args(at.begin(), at.end() - 1);
      for (size_t k = 0; k < differentiable.size(); ++k)
        args[differentiable[k]] = symbolic[k];
      return Outputs{F::sum(case_fn(args)[0] * at.back())};
    };
    // The constants are buffers of the root (integer targets, weights, R):
    // the trace reads them by their storage.
    Module root(GetParam().name);
    constants_.clear();
    constants_.reserve(at.size());
    for (size_t i = 0; i < at.size(); ++i)
      if (std::find(differentiable.begin(), differentiable.end(), i) ==
          differentiable.end()) {
        constants_.push_back(at[i]);
        root.register_buffer("constant_" + std::to_string(i),
                             &constants_.back());
      }
    TracedModule traced = trace(root, specs, fn);
    if (gradients)
      traced.differentiate(/*inputs=*/true);
    return compile(traced);
  }

  /// The differentiated inputs of `at`, by name.
  StateDict named(const Inputs &at) const {
    StateDict result;
    for (size_t i : differentiable)
      result.insert("input." + std::to_string(i), at[i]);
    return result;
  }

  StateDict tensors;
  Inputs inputs; // the case's, then the weight
  std::vector<size_t> differentiable;
  std::vector<Tensor> constants_; // registered as the root's buffers
};

TEST_P(GradTest, MatchesPyTorch) {
  auto outputs = compileLoss(inputs, true)->run(named(inputs));
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  for (size_t i : differentiable) {
    std::string name = "grad.input." + std::to_string(i);
    const Tensor *expected = tensors.find(name);
    const Tensor *actual = outputs->find(name);
    ASSERT_EQ(actual != nullptr, expected != nullptr)
        << name << (expected ? " is missing" : ": PyTorch has none");
    // Gradients sum products in another order than PyTorch's kernels.
    if (expected)
      expectClose(*actual, *expected, {1e-5, 1e-5},
                  GetParam().name + " " + name);
  }
}

TEST_P(GradTest, MatchesFiniteDifferencesInFloat64) {
  Inputs wide;
  for (const Tensor &t : inputs)
    wide.push_back(is_floating_point(t.dtype()) ? t.to(DType::f64) : t);
  auto analytic = compileLoss(wide, true)->run(named(wide));
  ASSERT_TRUE(analytic.ok()) << analytic.status();
  auto loss = compileLoss(wide, false);
  const double eps = 1e-6;
  for (size_t i : differentiable) {
    std::string name = "grad.input." + std::to_string(i);
    const Tensor *grad = analytic->find(name);
    if (!grad)
      continue; // PyTorch has none either (MatchesPyTorch)
    Inputs at = wide;
    at[i] = wide[i].clone();
    double *x = at[i].data_ptr<double>();
    auto lossAt = [&] {
      return loss->run(named(at)).value().begin()->second.item_as_double(0);
    };
    for (int64_t k = 0; k < at[i].numel(); ++k) {
      double saved = x[k];
      x[k] = saved + eps;
      double plus = lossAt();
      x[k] = saved - eps;
      double minus = lossAt();
      x[k] = saved;
      double numeric = (plus - minus) / (2 * eps);
      double analyticValue = grad->item_as_double(k);
      ASSERT_LE(std::abs(analyticValue - numeric),
                1e-5 + 1e-3 * std::abs(numeric))
          << GetParam().name << " " << name << "[" << k << "]: nn "
          << analyticValue << ", finite differences " << numeric;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Grads, GradTest, ::testing::ValuesIn(gradCases()),
                         caseName);

// Random ops differentiate with the same masks forward drew: with the
// generator state fixed, dropout and attention dropout's gradients are
// those of a fixed function, and match its finite differences (float64);
// a gradient that ignored or redrew a mask would not.
TEST(RandomGradTest, DropoutMasksAreTheForwardsOwn) {
  Tensor q = randomTensor({2, 5, 4}, 11).to(DType::f64);
  Tensor k = randomTensor({2, 6, 4}, 12).to(DType::f64);
  Tensor v = randomTensor({2, 6, 3}, 13).to(DType::f64);
  Tensor r = randomTensor({2, 5, 3}, 14).to(DType::f64);
  Module root("Random");
  root.register_buffer("k", &k);
  root.register_buffer("v", &v);
  root.register_buffer("r", &r);
  auto fn = [&](const Inputs &in) {
    Tensor attended = F::scaled_dot_product_attention(
        in[0], k, v, F::ScaledDotProductAttentionFuncOptions().dropout_p(0.3));
    return Outputs{F::sum(F::dropout(attended, 0.4) * r)};
  };
  std::vector<TensorSpec> specs = {TensorSpec({2, 5, 4}, DType::f64)};
  TracedModule traced = trace(root, specs, fn);
  auto loss = compile(traced);
  auto grads = compile(traced.clone().differentiate(/*inputs=*/true));
  const RngState rng{7, 0};
  std::vector<Tensor> analytic = grads->run({q}, rng).value();
  ASSERT_EQ(grads->description().outputs[1].name, "grad.input.0");
  Tensor x = q.clone();
  double *data = x.data_ptr<double>();
  const double eps = 1e-6;
  for (int64_t i = 0; i < x.numel(); ++i) {
    double saved = data[i];
    data[i] = saved + eps;
    double plus = loss->run({x}, rng).value()[0].item_as_double(0);
    data[i] = saved - eps;
    double minus = loss->run({x}, rng).value()[0].item_as_double(0);
    data[i] = saved;
    double numeric = (plus - minus) / (2 * eps);
    double a = analytic[1].item_as_double(i);
    ASSERT_LE(std::abs(a - numeric), 1e-5 + 1e-3 * std::abs(numeric))
        << "grad.input.0[" << i << "]: nn " << a << ", finite differences "
        << numeric;
  }
}

} // namespace
} // namespace nn::testing
