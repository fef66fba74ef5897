//===- PipelineEquivalenceTest.cpp - nn-optimize keeps every seed model ---===//
//
// For every seed model (in eval, with random BatchNorm statistics and affine
// parameters so that batch-norm folding has something to fold), the output
// compiled after the full nn-optimize pipeline, and after it with each graph
// pass switched off, equals the output compiled without any optimization.
//
// Tolerance: torch.testing's float32 default (rtol 1.3e-6, atol 1e-5) for
// every model, ResNet's folded batch norms included: folding rounds
// (x·w·s) + ((b - mean)·s + beta) instead of ((x·w + b) - mean)/sqrt(var +
// eps)·gamma + beta, which stays well inside it at these sizes, so nothing
// is loosened.
//===----------------------------------------------------------------------===//

#include "models/SeedModels.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace nn;

namespace {

/// Random running statistics and affine parameters for every BatchNorm, so
/// that folding is not the identity.
void randomizeBatchNorms(Module &model) {
  for (auto &[name, module] : model.named_modules()) {
    auto *bn = dynamic_cast<BatchNormImplBase *>(module.get());
    if (!bn)
      continue;
    if (bn->running_mean.defined()) {
      init::normal_(bn->running_mean, 0.0, 0.5);
      init::uniform_(bn->running_var, 0.5, 2.0);
    }
    if (bn->weight.defined())
      init::uniform_(bn->weight, 0.5, 1.5);
    if (bn->bias.defined())
      init::normal_(bn->bias, 0.0, 0.5);
  }
}

/// One random input per described input (floats normal, integers zero).
std::vector<Tensor> randomInputs(const Artifact &artifact) {
  std::vector<Tensor> inputs;
  for (const TensorInfo &info : artifact.description().inputs) {
    Tensor t = Tensor::zeros(info.shape, info.dtype);
    if (info.dtype == DType::f32)
      init::normal_(t);
    inputs.push_back(t);
  }
  return inputs;
}

struct Variant {
  const char *name;
  OptimizeOptions options;
};

std::vector<Variant> variants() {
  OptimizeOptions full, noFuse, noFold, noTie, noScale, noMerge;
  noFuse.fuse = false;
  noFold.fold_batchnorm = false;
  noTie.tie_weights = false;
  noScale.fold_scalar_mul = false;
  noMerge.merge_linears = false;
  return {{"full", full},
          {"fuse=false", noFuse},
          {"fold-batchnorm=false", noFold},
          {"tie-weights=false", noTie},
          {"fold-scalar-mul=false", noScale},
          {"merge-linears=false", noMerge}};
}

class PipelineEquivalenceTest
    : public ::testing::TestWithParam<models::ModelCase> {};

TEST_P(PipelineEquivalenceTest, OptimizedEqualsUnoptimized) {
  const models::ModelCase &c = GetParam();
  std::shared_ptr<Module> model = c.make(0);
  model->eval();
  manual_seed(1);
  randomizeBatchNorms(*model);
  TracedModule traced = c.trace(model);

  CompileOptions plain;
  plain.optimize = false;
  auto reference = compile(traced, plain);
  std::vector<Tensor> inputs = randomInputs(*reference);
  auto expected = reference->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();

  for (const Variant &v : variants()) {
    SCOPED_TRACE(v.name);
    CompileOptions options;
    options.optimize_options = v.options;
    auto artifact = compile(traced, options);
    auto actual = artifact->run(inputs);
    ASSERT_TRUE(actual.ok()) << actual.status();
    ASSERT_EQ(actual->size(), expected->size());
    for (size_t o = 0; o < actual->size(); ++o) {
      const Tensor &a = (*actual)[o], &e = (*expected)[o];
      ASSERT_EQ(a.shape(), e.shape());
      for (int64_t i = 0; i < a.numel(); ++i) {
        double x = a.item_as_double(i), y = e.item_as_double(i);
        ASSERT_LE(std::abs(x - y), 1e-5 + 1.3e-6 * std::abs(y))
            << "output " << o << " element " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SeedModels, PipelineEquivalenceTest,
                         ::testing::ValuesIn(models::seed_models()),
                         [](const auto &info) { return info.param.name; });

/// Self-attention written with three projections and explicit scalings,
/// over enough rows (64) that nn-merge-linears' cost rule merges them and
/// nn-fold-scalar-mul moves every scale: q's into the attention's scale,
/// v's input scale and the output scale into the weights.
class ThreeProjectionAttentionImpl
    : public Cloneable<ThreeProjectionAttentionImpl> {
public:
  ThreeProjectionAttentionImpl() : Cloneable("ThreeProjectionAttention") {
    q = register_module("q", Linear(16, 16));
    k = register_module("k", Linear(16, 16));
    v = register_module("v", Linear(16, 16));
    out = register_module("out", Linear(16, 16));
  }
  Tensor forward(const Tensor &x) {
    Tensor a = F::scaled_dot_product_attention(q(x) * 0.5, k(x), v(x));
    return out(a * 2.0) / 4.0;
  }
  Linear q{nullptr}, k{nullptr}, v{nullptr}, out{nullptr};
};
NN_MODULE(ThreeProjectionAttention);

TEST(AlgebraPassesTest, MergedAndRescaledAttentionKeepsItsOutputs) {
  ThreeProjectionAttention model;
  model->eval();
  TracedModule traced = trace(model, {TensorSpec({64, 16})});

  // The passes fired: one linear for q/k/v plus the output projection, and
  // no multiply or divide left on activations (only on weights).
  TracedModule optimized = traced.clone();
  optimized.optimize();
  std::string ir = optimized.to_string();
  size_t linears = 0;
  for (size_t at = ir.find("nn.linear"); at != std::string::npos;
       at = ir.find("nn.linear", at + 1))
    ++linears;
  EXPECT_EQ(linears, 2u) << ir;
  EXPECT_NE(ir.find("nn.cat"), std::string::npos) << ir;
  EXPECT_NE(ir.find("scale 1.250000e-01"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("tensor<64x16xf32>, tensor<f32>"), std::string::npos) << ir;

  CompileOptions plain;
  plain.optimize = false;
  auto reference = compile(traced, plain);
  auto artifact = compile(traced);
  std::vector<Tensor> inputs = randomInputs(*reference);
  auto expected = reference->run(inputs);
  auto actual = artifact->run(inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  const Tensor &a = (*actual)[0], &e = (*expected)[0];
  ASSERT_EQ(a.shape(), e.shape());
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.item_as_double(i), y = e.item_as_double(i);
    ASSERT_LE(std::abs(x - y), 1e-5 + 1.3e-6 * std::abs(y)) << "element " << i;
  }
}

/// nn-tie-weights on TiedModel: one symbol remains, listing both names, and
/// the artifact binds it once while describing both.
TEST(TieWeightsTest, TiedModelKeepsOneSymbolAndBothNames) {
  models::TiedModel model;
  model->eval();
  TracedModule traced = trace(model, {TensorSpec({2, 16})});
  std::string before = traced.to_string();
  EXPECT_NE(before.find("nn.parameter @decoder.weight : tensor<16x16xf32> "
                        "tied_to @encoder.weight"),
            std::string::npos)
      << before;

  TracedModule optimized = traced.clone();
  optimized.optimize();
  std::string after = optimized.to_string();
  EXPECT_NE(after.find("nn.parameter @encoder.weight : tensor<16x16xf32> "
                       "aliases [\"decoder.weight\"]"),
            std::string::npos)
      << after;
  EXPECT_EQ(after.find("nn.parameter @decoder.weight"), std::string::npos)
      << after;

  auto artifact = compile(traced);
  std::vector<std::string> names;
  for (const StateInfo &info : artifact->description().state)
    if (info.name == "encoder.weight")
      EXPECT_EQ(info.aliases, std::vector<std::string>{"decoder.weight"});
    else
      names.push_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{"encoder.bias", "decoder.bias"}));

  // Bound from a state_dict that only has the alias's name.
  StateDict weights;
  for (const auto &[name, tensor] : traced.state())
    if (name != "encoder.weight")
      weights.insert(name, tensor);
  ASSERT_TRUE(artifact->bind(weights).ok());
}

} // namespace
