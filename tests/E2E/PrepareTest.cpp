//===- PrepareTest.cpp - State-derived values are never stale -------------===//
//
// A compiled model computes what depends on its weights alone (batch-norm
// folded into the convolution, weights packed for the GEMM) once, in its
// prepare step. These tests change the weights in place the ways a user
// does (load_state_dict, an optimizer-style update through data_ptr,
// copy_) and check that nn::CompiledModule re-runs prepare before the next
// call, without recompiling: the outputs are PyTorch's (SimpleMLP's
// goldens) or those of a model compiled from scratch on the new values,
// bit for bit.
//
//===----------------------------------------------------------------------===//

#include "models/SimpleMLP.h"

#include "E2ETestUtil.h"

#include "nn/nn.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace nn;

namespace {

using nn::testing::loadSimpleMLPGolden;

bool sameBits(const Tensor &a, const Tensor &b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

/// The output of a model compiled from scratch on the module's current
/// state: what any compiled model of it must give.
Tensor fresh(const TracedModule &traced, const Tensor &input) {
  auto outputs = compile(traced)->run({input});
  if (!outputs.ok())
    throw Error(std::string(outputs.status().message()));
  return (*outputs)[0];
}

TEST(PrepareTest, LoadStateDictRepreparesAndMatchesPyTorch) {
  models::SimpleMLP model;
  model->eval();
  CompiledModule compiled(model, {TensorSpec({64, 784})});
  Tensor input =
      loadSimpleMLPGolden("inputs.safetensors").tensors.at("input.0");
  Tensor expected =
      loadSimpleMLPGolden("outputs.safetensors").tensors.at("output.0");
  Tensor before = compiled({input}).at(0); // random init, packed
  // PyTorch's weights copied into the same tensors.
  model->load_state_dict(loadSimpleMLPGolden("weights.safetensors").tensors);
  Tensor after = compiled({input}).at(0);
  EXPECT_EQ(compiled.compile_count(), 1u);
  EXPECT_EQ(compiled.reprepare_count(), 1u);
  EXPECT_FALSE(sameBits(before, after));
  for (int64_t i = 0; i < after.numel(); ++i) {
    double a = after.item_as_double(i), e = expected.item_as_double(i);
    ASSERT_LE(std::abs(a - e), 1e-5 + 1.3e-6 * std::abs(e)) << "element " << i;
  }
}

TEST(PrepareTest, AnOptimizerStyleUpdateIsNeverReadStale) {
  models::SimpleMLP model;
  model->eval();
  std::vector<TensorSpec> specs{TensorSpec({64, 784})};
  CompiledModule compiled(model, specs);
  Tensor input =
      loadSimpleMLPGolden("inputs.safetensors").tensors.at("input.0");
  compiled({input});
  // w -= 0.5 * w on every parameter, written through data_ptr as an SGD
  // step would: each call must see the weights as they are now.
  for (int step = 0; step < 2; ++step) {
    for (auto &[name, p] : model->named_parameters()) {
      float *w = p.data_ptr<float>();
      for (int64_t i = 0; i < p.numel(); ++i)
        w[i] -= 0.5f * w[i];
    }
    Tensor got = compiled({input}).at(0);
    EXPECT_TRUE(sameBits(got, fresh(trace(model, specs), input)))
        << "step " << step;
  }
  EXPECT_EQ(compiled.compile_count(), 1u);
  EXPECT_EQ(compiled.reprepare_count(), 2u);
  // Calls without a change prepare nothing.
  compiled({input});
  EXPECT_EQ(compiled.reprepare_count(), 2u);
}

/// Conv + BatchNorm2d (eval) + ReLU: the folded weight and bias and the
/// packed weight are computed by prepare from the parameters and the
/// running statistics.
class ConvBNImpl : public Cloneable<ConvBNImpl> {
public:
  ConvBNImpl() : Cloneable("ConvBN") {
    conv = register_module("conv", Conv2d(Conv2dOptions(3, 8, 3).padding(1)));
    bn = register_module("bn", BatchNorm2d(8));
  }
  Tensor forward(const Tensor &x) { return F::relu(bn(conv(x))); }
  Conv2d conv{nullptr};
  BatchNorm2d bn{nullptr};
};
NN_MODULE(ConvBN);

TEST(PrepareTest, ChangedRunningStatisticsRefoldTheBatchNorm) {
  manual_seed(3);
  ConvBN model;
  model->eval();
  std::vector<TensorSpec> specs{TensorSpec({2, 3, 10, 10})};
  CompiledModule compiled(model, specs);
  Tensor input = Tensor::zeros({2, 3, 10, 10});
  init::uniform_(input, -1.0, 1.0);
  Tensor before = compiled({input}).at(0);
  std::vector<float> mean(8), var(8);
  for (int i = 0; i < 8; ++i)
    mean[i] = 0.1f * i, var[i] = 1.0f + 0.5f * i;
  model->bn->running_mean.copy_(Tensor::from_vector(mean, {8}));
  model->bn->running_var.copy_(Tensor::from_vector(var, {8}));
  Tensor after = compiled({input}).at(0);
  EXPECT_FALSE(sameBits(before, after));
  EXPECT_TRUE(sameBits(after, fresh(trace(model, specs), input)));
  EXPECT_EQ(compiled.compile_count(), 1u);
  EXPECT_EQ(compiled.reprepare_count(), 1u);
}

} // namespace
